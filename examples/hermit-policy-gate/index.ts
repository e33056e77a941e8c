// The policy gate as OpenHermit's plugin design sketches it: `index.ts` exporting
// `register(ctx)`, subscribing with `ctx.bus.on('tool.before@v1', handler, { priority })`.

interface ToolBefore {
  tool?: { name?: string; input?: { command?: unknown } };
}

type Veto = { allow: boolean; reason?: string };

interface PluginContext {
  bus: {
    on(event: string, handler: (payload: ToolBefore) => Veto | Promise<Veto>, options?: { priority?: number }): void;
  };
  logger: { info(message: string): void };
}

export function register(ctx: PluginContext): void {
  ctx.bus.on(
    'tool.before@v1',
    (payload: ToolBefore): Veto => {
      const command = String(payload.tool?.input?.command ?? '');
      if (String(payload.tool?.name).toLowerCase() === 'bash' && command.includes('rm -rf')) {
        ctx.logger.info(`vetoed: ${command}`);
        return { allow: false, reason: 'rm -rf is not allowed by the policy gate' };
      }
      return { allow: true };
    },
    { priority: 10 },
  );
}
