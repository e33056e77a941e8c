// A listener that records metrics: each tool.after@v1 is counted per tool (and as a
// failure when the tool reported an error). A listener's return is ignored; the counts
// live in the warm plugin host between events and are reported through ctx.logger, which
// hookrig records with each event's hook run (`hookrig why RUN`). The counts are also
// offered as a tool, `metrics`, for `hookrig plugins call hermit-metrics metrics`.

interface ToolAfter {
  tool?: { name?: string; error?: unknown };
}

interface Counts {
  calls: number;
  failures: number;
}

interface PluginContext {
  agent: string | null;
  bus: { on(event: string, handler: (payload: ToolAfter) => void): void };
  tools: {
    add(tool: { name: string; description: string; schema: object; handler: () => unknown }): void;
  };
  logger: { info(message: string): void };
}

const counts = new Map<string, Counts>();

export function register(ctx: PluginContext): void {
  ctx.bus.on('tool.after@v1', (payload: ToolAfter): void => {
    const name = String(payload.tool?.name ?? 'unknown');
    const entry = counts.get(name) ?? { calls: 0, failures: 0 };
    entry.calls += 1;
    if (payload.tool?.error) entry.failures += 1;
    counts.set(name, entry);
    ctx.logger.info(`metrics: ${name} calls=${entry.calls} failures=${entry.failures} agent=${ctx.agent ?? '-'}`);
  });
  ctx.tools.add({
    name: 'metrics',
    description: 'the tool calls counted since this plugin host started',
    schema: { type: 'object', properties: {} },
    handler: () => Object.fromEntries(counts),
  });
}
