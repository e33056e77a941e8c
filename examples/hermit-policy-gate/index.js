// An OpenHermit plugin run by hookrig's plugin host: a policy gate that vetoes bash
// commands containing `rm -rf`. index.ts is the same plugin in TypeScript; hookrig
// loads it instead when the running Node.js strips types.

export function register(ctx) {
  ctx.bus.on(
    "tool.before@v1",
    (payload) => {
      const tool = payload.tool ?? {};
      const command = String(tool.input?.command ?? "");
      if (String(tool.name).toLowerCase() === "bash" && command.includes("rm -rf")) {
        ctx.logger.info(`vetoed: ${command}`);
        return { allow: false, reason: "rm -rf is not allowed by the policy gate" };
      }
      return { allow: true };
    },
    { priority: 10 },
  );
}
