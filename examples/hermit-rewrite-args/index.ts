// A transform of a tool's arguments: `git push --force` becomes
// `git push --force-with-lease`, which refuses to overwrite commits the agent has not
// seen. tool.before is a veto event, so the rewrite is handed on as
// `{ allow: true, payload }`: the handlers after it and the agent get the new arguments.

interface ToolBefore {
  tool?: { name?: string; input?: { command?: unknown } };
  [key: string]: unknown;
}

type Veto = { allow: boolean; reason?: string; payload?: ToolBefore };

interface PluginContext {
  bus: {
    on(event: string, handler: (payload: ToolBefore) => Veto, options?: { priority?: number }): void;
  };
  logger: { info(message: string): void };
}

export function register(ctx: PluginContext): void {
  ctx.bus.on(
    'tool.before@v1',
    (payload: ToolBefore): Veto => {
      const command = payload.tool?.input?.command;
      if (typeof command !== 'string' || !/\bgit push\b.*--force(?!-)/.test(command)) {
        return { allow: true };
      }
      const rewritten = command.replace(/--force(?!-)/g, '--force-with-lease');
      ctx.logger.info(`rewrote: ${command} -> ${rewritten}`);
      return {
        allow: true,
        payload: { ...payload, tool: { ...payload.tool, input: { ...payload.tool?.input, command: rewritten } } },
      };
    },
    { priority: 5 },
  );
}
