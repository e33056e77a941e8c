// A tool added with ctx.tools.add: a fast local tool that does not pay an MCP
// round trip. `hookrig plugins show hermit-tools` lists it with its schema;
// `hookrig plugins call hermit-tools word_count --args '{"text": "..."}'` calls it.

interface WordCountArgs {
  text: string;
}

interface PluginContext {
  tools: {
    add(tool: {
      name: string;
      description: string;
      schema: object;
      handler: (args: WordCountArgs) => unknown;
    }): void;
  };
}

export function register(ctx: PluginContext): void {
  ctx.tools.add({
    name: 'word_count',
    description: 'counts the lines, words and characters of a text',
    schema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'the text to count' } },
      required: ['text'],
    },
    handler: async ({ text }: WordCountArgs) => ({
      lines: text === '' ? 0 : text.split('\n').length,
      words: text.split(/\s+/).filter((word) => word !== '').length,
      characters: [...text].length,
    }),
  });
}
