# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_hookrig_global_optspecs
    string join \n debug debug-hooks ledger= no-ledger agent= plan= h/help V/version
end

function __fish_hookrig_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_hookrig_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_hookrig_using_subcommand
    set -l cmd (__fish_hookrig_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c hookrig -n "__fish_hookrig_needs_command" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_needs_command" -l agent -d 'The agent of every command that names none, and of external commands (`HOOKRIG_AGENT`, `HENCE_AGENT`); default `$HOOKRIG_AGENT`, else `$HENCE_AGENT`' -r
complete -c hookrig -n "__fish_hookrig_needs_command" -l plan -d 'The plan file of every command that names none, and of external commands (`HOOKRIG_PLAN`, `HENCE_PLAN`); default `$HOOKRIG_PLAN`, else `$HENCE_PLAN`' -r -F
complete -c hookrig -n "__fish_hookrig_needs_command" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_needs_command" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_needs_command" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_needs_command" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_needs_command" -s V -l version -d 'Print version'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "emit" -d 'Emit an event: payload JSON on stdin, one Outcome JSON object on stdout'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "events" -d 'Print the event catalog'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "runs" -d 'List recent emits, newest first'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "list" -d 'List the configured hooks (every dialect, global and project)'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "show" -d 'Show everything about the hooks with this name'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "explain" -d 'Say which hooks an event would run, in what order, and why the others would not'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "validate" -d 'Check every config source; exit 1 on an error (and with --strict, on a warning)'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "schema" -d 'Print the JSON Schema of hooks.toml'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "completions" -d 'Print the completion script of SHELL (`hookrig completions bash > ...`)'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "trust" -d 'Trust the project hooks and automation files of DIR as they are now, so that they run'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "install" -d 'Make hookrig the one hook of an agent host; the host\'s own hooks then run through hookrig'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "uninstall" -d 'Take hookrig out of an agent host\'s settings and put the host\'s hooks back'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "doctor" -d 'For each agent host on this machine: is hookrig installed, which of its hooks will run, which wait for `hookrig trust`, what hookrig cannot honour'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "plugins" -d 'Register plugin packages and enable them per agent'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "auto" -d 'The automations of the automation engine (`hookrig serve`) and their runs'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "serve" -d 'Run the automation engine: triggers, the file watcher, and the socket through which `hookrig emit` and `hookrig fire` reach it. Stops on SIGINT or SIGTERM'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "store" -d 'The store: its engine, schema and rows (`status`), and the copy of the SQLite store into PostgreSQL (`migrate --to`)'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "ui" -d 'Open the web dashboard of `hookrig serve --ui` in a browser (starting a serve with the dashboard on a free loopback port when none runs); prints the link'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "engine" -d 'The resident engine that answers emits: run, start, status, stop'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "fire" -d 'Run an automation now, wait for it and print the run record (exit 1 when it failed)'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "test" -d 'Run the hook tests of `.hookrig/tests/` and `$XDG_CONFIG_HOME/hookrig/tests/` in a sandbox; exit 1 when one fails. `--new EVENT` writes a case instead'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "replay" -d 'Emit the ledger\'s recorded events again against today\'s config, in a sandbox, and say which decisions would change and which hook changed them'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "why" -d 'Show every hook considered for one emit, and why it did or did not run'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "config" -d 'Show the merged config.toml and where each value came from'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "providers" -d 'The agent providers of config.toml'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "agent" -d 'Start a provider CLI on a task in its own git worktree; list, watch, stop, clean'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "plan" -d 'Plans: the board, what to do next, and checking a plan'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "task" -d 'Task actions: claim, unclaim, complete, block, unblock, assert'
complete -c hookrig -n "__fish_hookrig_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l dialect -d 'The host\'s input and output format' -r -f -a "native\t'hookrig\'s own: a payload object in, an Outcome object out'
claude\t'Claude Code\'s hook input in, Claude Code\'s hook output and exit codes out (also Codex, Cursor, Gemini and other agents that read that format)'
hygge\t'hygge\'s `Input` in, hygge\'s `Action` out'
xcode\t'x-code\'s plugin payload in, x-code\'s hook reply out'
gemini\t'Gemini CLI\'s hook input in, Gemini CLI\'s hook output out'
codex\t'Codex CLI\'s hook input in, Codex\'s strictly read hook output out'
cursor\t'Cursor\'s hook input in, Cursor\'s hook output out'"
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l plugin-dir -d 'An extra x-code plugin directory (repeatable)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l cwd -d 'The directory the event happened in (default: the payload\'s `session.cwd`, else the current directory)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l session -d 'The agent session id (default: the payload\'s `session.id`)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l agent -d 'The agent emitting: plugin packages run only when enabled for it (or for all agents). Default: `$HOOKRIG_AGENT`, else `$HENCE_AGENT`, else the payload\'s `session.agent`; without any, only packages enabled for all agents run' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l tool -d 'The tool name, when the payload does not name one' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l max-payload -d 'The largest payload read from stdin: bytes, or a number with `KiB`, `MiB` or `GiB`. A larger payload is an error' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l no-hooks -d 'Load every hook and plugin but run no hook: the event goes on as if every hook allowed, and the Outcome says hooks were suppressed. Also `HOOKRIG_NO_HOOKS=1`'
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l no-plugins -d 'Load nothing from plugins (x-code plugins, --plugin-dir, registered packages); the other hooks run'
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand emit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand events" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand events" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand events" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand events" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand events" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand events" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l limit -d 'How many emits to show' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l event -d 'Only this event (any accepted spelling)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l agent -d 'Only the emits of this agent (the exact name recorded from `emit --agent`, `HOOKRIG_AGENT` or the payload\'s `session.agent`)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l shadow -d 'Only the emits where a shadow hook\'s answer disagreed with the decision'
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand runs" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -l event -d 'Only hooks that listen to this event (any accepted spelling)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -l cwd -d 'The working directory whose project is used (default: the current one)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand list" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand show" -l cwd -d 'The working directory whose project is used (default: the current one)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand show" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand show" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand show" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand show" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand show" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand show" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -l tool -d 'The tool name matchers would test' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -l cwd -d 'The working directory whose project is used (default: the current one)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -l plugin-dir -d 'An extra x-code plugin directory (repeatable)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand explain" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand validate" -l cwd -d 'The working directory whose project is used (default: the current one)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand validate" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand validate" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand validate" -l strict -d 'Fail on warnings too'
complete -c hookrig -n "__fish_hookrig_using_subcommand validate" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand validate" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand validate" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand validate" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand schema" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand schema" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand schema" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand schema" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand schema" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand completions" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand completions" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand completions" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand completions" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand completions" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand trust" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand trust" -l list -d 'List the trusted hooks instead'
complete -c hookrig -n "__fish_hookrig_using_subcommand trust" -l revoke -d 'Forget the trust given to the hooks of DIR (with --any-project: stop trusting every project)'
complete -c hookrig -n "__fish_hookrig_using_subcommand trust" -l any-project -d 'Trust every project\'s hooks on this machine, as they are and whatever they become: for a container or CI machine whose checkouts are all the thing being tested, never where your credentials are'
complete -c hookrig -n "__fish_hookrig_using_subcommand trust" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand trust" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand trust" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand trust" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -l http -d 'Claude Code only: HTTP hooks posting to the resident engine at ADDR (default 127.0.0.1:7700) instead of a command; Claude Code must have `HOOKRIG_TOKEN` set' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -l user -d 'The user\'s settings file (the default)'
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -l project -d 'The settings file of the working directory\'s repository'
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand uninstall" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand uninstall" -l user -d 'The user\'s settings file (the default)'
complete -c hookrig -n "__fish_hookrig_using_subcommand uninstall" -l project -d 'The settings file of the working directory\'s repository'
complete -c hookrig -n "__fish_hookrig_using_subcommand uninstall" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand uninstall" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand uninstall" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand uninstall" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand uninstall" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand doctor" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand doctor" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand doctor" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand doctor" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand doctor" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -f -a "list" -d 'List the registered plugin packages and for which agents each is enabled'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -f -a "register" -d 'Register the plugin package in DIR (a directory with a plugin.json manifest)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -f -a "enable" -d 'Enable a package for one agent, or for every agent'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -f -a "disable" -d 'Disable a package for one agent, or for every agent'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -f -a "show" -d 'Show a package: its hooks, for whom it is enabled, the problems of its manifest; for a JavaScript plugin its subscriptions and tools, or why it fails to load'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -f -a "call" -d 'Call a tool a JavaScript plugin added with `ctx.tools.add`; prints its result as JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -f -a "delete" -d 'Forget a package (and for whom it was enabled). Its files are left alone'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and not __fish_seen_subcommand_from list register enable disable show call delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from list" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from list" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from list" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from list" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from list" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from list" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -l name -d 'Display name (default: the manifest\'s `name`)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -l description -d 'What it does (default: the manifest\'s `description`)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -l path -d 'The package directory' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from register" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from enable" -l agent -d 'The agent (`*` is the same as --all)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from enable" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from enable" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from enable" -l all -d 'Every agent; replaces any per-agent setting'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from enable" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from enable" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from enable" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from enable" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from disable" -l agent -d 'The agent (`*` is the same as --all)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from disable" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from disable" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from disable" -l all -d 'Every agent; replaces any per-agent setting'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from disable" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from disable" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from disable" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from disable" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from show" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from show" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from show" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from show" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from show" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from show" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from call" -l args -d 'The tool\'s arguments, a JSON object' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from call" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from call" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from call" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from call" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from call" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from call" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from delete" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from delete" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from delete" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from delete" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from delete" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the registered plugin packages and for which agents each is enabled'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from help" -f -a "register" -d 'Register the plugin package in DIR (a directory with a plugin.json manifest)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from help" -f -a "enable" -d 'Enable a package for one agent, or for every agent'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from help" -f -a "disable" -d 'Disable a package for one agent, or for every agent'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a package: its hooks, for whom it is enabled, the problems of its manifest; for a JavaScript plugin its subscriptions and tools, or why it fails to load'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from help" -f -a "call" -d 'Call a tool a JavaScript plugin added with `ctx.tools.add`; prints its result as JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Forget a package (and for whom it was enabled). Its files are left alone'
complete -c hookrig -n "__fish_hookrig_using_subcommand plugins; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "add" -d 'Add (or update) the automation defined in FILE (TOML, or JSON when it ends in .json)'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "list" -d 'List the automations'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "show" -d 'Show one automation'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "enable" -d 'Let the engine run an automation again'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "disable" -d 'Stop the engine from running an automation (`hookrig fire` still can)'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "rm" -d 'Remove an automation and its runs'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "trust" -d 'Trust the project\'s `.hookrig/automations/*.toml` files as they are now'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "runs" -d 'List runs, newest first'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and not __fish_seen_subcommand_from add list show enable disable rm trust runs help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from add" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from add" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from add" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from add" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from add" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from list" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from list" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from list" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from list" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from list" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from list" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from show" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from show" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from show" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from show" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from show" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from show" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from enable" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from enable" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from enable" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from enable" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from enable" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from enable" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from disable" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from disable" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from disable" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from disable" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from disable" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from disable" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from rm" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from rm" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from rm" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from rm" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from rm" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from rm" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from trust" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from trust" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from trust" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from trust" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from trust" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -l limit -d 'At most this many runs' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -l follow -d 'Keep running, printing runs as they start and change status (with --json, one record per line), until interrupted'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from runs" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add (or update) the automation defined in FILE (TOML, or JSON when it ends in .json)'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the automations'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show one automation'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "enable" -d 'Let the engine run an automation again'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "disable" -d 'Stop the engine from running an automation (`hookrig fire` still can)'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "rm" -d 'Remove an automation and its runs'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "trust" -d 'Trust the project\'s `.hookrig/automations/*.toml` files as they are now'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "runs" -d 'List runs, newest first'
complete -c hookrig -n "__fish_hookrig_using_subcommand auto; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -l http -d 'Also answer emits over HTTP on this address (`POST /emit/EVENT?dialect=D` with `Authorization: Bearer TOKEN`; see --print-token). Off by default; an address beyond loopback is served with a warning' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -l ui -d 'Also serve the web dashboard on this address (`hookrig ui` opens it with the token). Port 0 picks a free port. An address beyond loopback is served with a warning' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -l print-token -d 'Print the token HTTP requests need (created on first use) and exit'
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand serve" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and not __fish_seen_subcommand_from status migrate help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and not __fish_seen_subcommand_from status migrate help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and not __fish_seen_subcommand_from status migrate help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and not __fish_seen_subcommand_from status migrate help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and not __fish_seen_subcommand_from status migrate help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and not __fish_seen_subcommand_from status migrate help" -f -a "status" -d 'The store\'s engine, schema version, rows per table, and the nodes that ran automations on it with their last heartbeat'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and not __fish_seen_subcommand_from status migrate help" -f -a "migrate" -d 'Copy the SQLite store\'s automations, their runs, fired periods and nodes (and the other tables the database shares) into a PostgreSQL store, then check that every row is there. Rows the database holds already are kept, so running it again finishes a copy cut short'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and not __fish_seen_subcommand_from status migrate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from status" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from status" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from status" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from status" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from status" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from status" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from migrate" -l to -d 'The PostgreSQL store (`postgres://user@host/db`)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from migrate" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from migrate" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from migrate" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from migrate" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from migrate" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from migrate" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "status" -d 'The store\'s engine, schema version, rows per table, and the nodes that ran automations on it with their last heartbeat'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "migrate" -d 'Copy the SQLite store\'s automations, their runs, fired periods and nodes (and the other tables the database shares) into a PostgreSQL store, then check that every row is there. Rows the database holds already are kept, so running it again finishes a copy cut short'
complete -c hookrig -n "__fish_hookrig_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand ui" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand ui" -l no-open -d 'Print the link without opening a browser'
complete -c hookrig -n "__fish_hookrig_using_subcommand ui" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand ui" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand ui" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand ui" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -f -a "run" -d 'Run an engine in the foreground (emits only, no automations) until it is stopped, gets SIGINT/SIGTERM/SIGHUP, or has been idle for --idle'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -f -a "start" -d 'Start an engine in the background and wait until it answers'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -f -a "status" -d 'Show the running engine: pid, uptime, build, emits answered and under way'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -f -a "stop" -d 'Stop the running engine (emits under way get their answers first)'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and not __fish_seen_subcommand_from run start status stop help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from run" -l idle -d 'How long without an emit before it exits (`10m`, `1h`, `0s` for never)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from run" -l http -d 'Also answer emits over HTTP on this address (see `hookrig serve --http`)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from run" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from run" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from run" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from run" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from start" -l idle -d 'How long without an emit before it exits (`10m`, `1h`, `0s` for never)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from start" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from start" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from start" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from start" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from status" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from status" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from status" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from status" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from status" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from stop" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from stop" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from stop" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from stop" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run an engine in the foreground (emits only, no automations) until it is stopped, gets SIGINT/SIGTERM/SIGHUP, or has been idle for --idle'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start an engine in the background and wait until it answers'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the running engine: pid, uptime, build, emits answered and under way'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop the running engine (emits under way get their answers first)'
complete -c hookrig -n "__fish_hookrig_using_subcommand engine; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand fire" -l store -d 'The PostgreSQL store several nodes share (`postgres://user@host/db`); default `$HOOKRIG_STORE_URL` (`serve`, `store` and `fire` then read `[store] url` of your own config.toml), else this machine\'s SQLite files' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand fire" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand fire" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand fire" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand fire" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand fire" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand fire" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l junit -d 'Also write the report as JUnit XML to FILE' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -s j -l jobs -d 'How many cases run at once (default: one per core)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l new -d 'Write a case for EVENT, its payload read from stdin, expecting today\'s answer' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l from-run -d 'Write a case from the ledger\'s emit with this run id, expecting today\'s answer' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l dialect -d 'The dialect of the `--new` payload (the host\'s input)' -r -f -a "native\t'hookrig\'s own: a payload object in, an Outcome object out'
claude\t'Claude Code\'s hook input in, Claude Code\'s hook output and exit codes out (also Codex, Cursor, Gemini and other agents that read that format)'
hygge\t'hygge\'s `Input` in, hygge\'s `Action` out'
xcode\t'x-code\'s plugin payload in, x-code\'s hook reply out'
gemini\t'Gemini CLI\'s hook input in, Gemini CLI\'s hook output out'
codex\t'Codex CLI\'s hook input in, Codex\'s strictly read hook output out'
cursor\t'Cursor\'s hook input in, Cursor\'s hook output out'"
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l name -d 'The new case\'s name (default: EVENT-N)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l file -d 'The test file in `.hookrig/tests/` the new case goes to' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l cwd -d 'The working directory whose project is used (default: the current one)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l since -d 'Only emits recorded within this long before now (`1d`, `2h`, `30m`)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l event -d 'Only emits of this event (any accepted spelling)' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l hook -d 'Only emits this hook took part in, then or today' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l limit -d 'At most this many emits, newest first' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l allow-side-effects -d 'Run every hook, whatever it does besides answering; by default only the hooks that declared `side_effects = false` run'
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand replay" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand why" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand why" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand why" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand why" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand why" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand why" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and not __fish_seen_subcommand_from show help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and not __fish_seen_subcommand_from show help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and not __fish_seen_subcommand_from show help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and not __fish_seen_subcommand_from show help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and not __fish_seen_subcommand_from show help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and not __fish_seen_subcommand_from show help" -f -a "show" -d 'Print the merged config.toml, each value with the file and line it came from'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and not __fish_seen_subcommand_from show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from show" -l cwd -d 'The working directory whose project is used (default: the current one)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from show" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from show" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from show" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from show" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from show" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the merged config.toml, each value with the file and line it came from'
complete -c hookrig -n "__fish_hookrig_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and not __fish_seen_subcommand_from list help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and not __fish_seen_subcommand_from list help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and not __fish_seen_subcommand_from list help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and not __fish_seen_subcommand_from list help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and not __fish_seen_subcommand_from list help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and not __fish_seen_subcommand_from list help" -f -a "list" -d 'List the providers (merged by id), whether each CLI is found, and its version'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and not __fish_seen_subcommand_from list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from list" -l cwd -d 'The working directory whose project is used (default: the current one)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from list" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from list" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from list" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from list" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from list" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the providers (merged by id), whether each CLI is found, and its version'
complete -c hookrig -n "__fish_hookrig_using_subcommand providers; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -f -a "spawn" -d 'Claim TASK and start a provider CLI on it in the worktree `.hookrig/worktrees/TASK`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -f -a "list" -d 'List the agents started by hookrig and whether they still run'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -f -a "watch" -d 'Keep agents working on a plan: start an agent on each ready task (up to --max at once) until the plan is complete or Ctrl-C'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -f -a "log" -d 'Follow an agent\'s log (every running agent of this repository without TASK) until it exits, then print how it exited'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -f -a "stop" -d 'End an agent: SIGTERM to its process group, SIGKILL after the grace period'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -f -a "clean" -d 'Remove a task\'s worktree, and its branch when merged into the current branch'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -f -a "__host" -d 'Internal: the detached process that runs and waits for a provider'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and not __fish_seen_subcommand_from spawn list watch log stop clean __host help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -l provider -d 'The provider, over the task\'s meta, the agent\'s config and auto-detection' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -l resume -d 'Continue an interrupted session: passes the provider\'s `resume_flag` and accepts a worktree with uncommitted changes'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -l force -d 'Claim the task even when it is not ready (as `hookrig task claim --force`)'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from spawn" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from list" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from list" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from list" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from list" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from list" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l agents -d 'The agents to act for (comma-separated): tasks assigned to them, and unassigned tasks for the least busy of them. Default: every assigned agent, and unassigned tasks are left alone' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l max -d 'At most this many agents of the plan at once' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l provider -d 'The provider for every agent, over the task\'s meta, the agent\'s config and auto-detection' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l grace -d 'Seconds between SIGTERM and SIGKILL when stopping an agent' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l stop-on-exit -d 'On Ctrl-C (SIGINT, SIGTERM, SIGHUP), stop the agents this watch started instead of leaving them running'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from watch" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from log" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from log" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from log" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from log" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from stop" -l grace -d 'Seconds between SIGTERM and SIGKILL' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from stop" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from stop" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from stop" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from stop" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from clean" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from clean" -l force -d 'Remove the worktree even with uncommitted changes (they are lost)'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from clean" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from clean" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from clean" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from clean" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from __host" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from __host" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from __host" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from __host" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from __host" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "spawn" -d 'Claim TASK and start a provider CLI on it in the worktree `.hookrig/worktrees/TASK`'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the agents started by hookrig and whether they still run'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "watch" -d 'Keep agents working on a plan: start an agent on each ready task (up to --max at once) until the plan is complete or Ctrl-C'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "log" -d 'Follow an agent\'s log (every running agent of this repository without TASK) until it exits, then print how it exited'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "stop" -d 'End an agent: SIGTERM to its process group, SIGKILL after the grace period'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "clean" -d 'Remove a task\'s worktree, and its branch when merged into the current branch'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "__host" -d 'Internal: the detached process that runs and waits for a provider'
complete -c hookrig -n "__fish_hookrig_using_subcommand agent; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -f -a "board" -d 'Show the plan\'s tasks by state (kanban, tree, dag, json, or an external formatter)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -f -a "next" -d 'List what an agent should take next: its assignments among ready tasks, or all its assignments when none is ready'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -f -a "validate" -d 'Check a plan: built-in rules, then every validator script; exit 1 on an error (and with --strict, on a warning)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and not __fish_seen_subcommand_from board next validate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -l format -d 'kanban (default), tree, dag, json, or NAME to run the formatter `hookrig-board-NAME` (or `hence-board-NAME`) with the board JSON on stdin' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -l json -d 'Same as --format json'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -l dot -d 'With the dag format: print Graphviz dot'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from board" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from next" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from next" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from next" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from next" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from next" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from next" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from next" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from next" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -l strict -d 'Warnings (and validators that cannot run) fail too'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from validate" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "board" -d 'Show the plan\'s tasks by state (kanban, tree, dag, json, or an external formatter)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "next" -d 'List what an agent should take next: its assignments among ready tasks, or all its assignments when none is ready'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "validate" -d 'Check a plan: built-in rules, then every validator script; exit 1 on an error (and with --strict, on a warning)'
complete -c hookrig -n "__fish_hookrig_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -f -a "claim" -d 'Claim a ready task (any task but a done one with --force)'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -f -a "unclaim" -d 'Give a claimed task back'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -f -a "complete" -d 'Mark a task done'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -f -a "block" -d 'Block a task by hand (its dependents are not blocked by it)'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -f -a "unblock" -d 'Lift a manual block'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -f -a "assert" -d 'Append SPL statements to the plan, e.g. `hookrig task assert \'(given failed-api)\'`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and not __fish_seen_subcommand_from claim unclaim complete block unblock assert help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -l force -d 'Claim a task that is not ready'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from claim" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unclaim" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unclaim" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unclaim" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unclaim" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unclaim" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unclaim" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unclaim" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unclaim" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from complete" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from complete" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from complete" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from complete" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from complete" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from complete" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from complete" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from complete" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -l reason -d 'Why; kept in the plan as `(given (blocked-by TASK "REASON"))`' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from block" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unblock" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unblock" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unblock" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unblock" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unblock" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unblock" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unblock" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from unblock" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from assert" -s f -l plan -d 'The plan file (default: `hookrig --plan`, else `$HOOKRIG_PLAN`, else `$HENCE_PLAN`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from assert" -l agent -d 'The agent acting (default: `hookrig --agent`, else `$HOOKRIG_AGENT`, else `$HENCE_AGENT`); only the plugin packages enabled for it, or for every agent, are used' -r
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from assert" -l ledger -d 'The ledger file (default `HOOKRIG_LEDGER` when it is an absolute path, else `$XDG_STATE_HOME/hookrig/ledger.db`)' -r -F
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from assert" -l json -d 'Print JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from assert" -l debug -d 'Write debug lines (one per hook run) to stderr; also `HOOKRIG_LOG=debug`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from assert" -l debug-hooks -d 'Write only the hook-run lines (`hooks.exec-ran ...`, `hooks.exec-timeout ...`) to stderr, without the rest of --debug; also `HOOKRIG_LOG=hooks`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from assert" -l no-ledger -d 'Do not record anything in the ledger'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from assert" -s h -l help -d 'Print help'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "claim" -d 'Claim a ready task (any task but a done one with --force)'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "unclaim" -d 'Give a claimed task back'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "complete" -d 'Mark a task done'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "block" -d 'Block a task by hand (its dependents are not blocked by it)'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "unblock" -d 'Lift a manual block'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "assert" -d 'Append SPL statements to the plan, e.g. `hookrig task assert \'(given failed-api)\'`'
complete -c hookrig -n "__fish_hookrig_using_subcommand task; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "emit" -d 'Emit an event: payload JSON on stdin, one Outcome JSON object on stdout'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "events" -d 'Print the event catalog'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "runs" -d 'List recent emits, newest first'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "list" -d 'List the configured hooks (every dialect, global and project)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "show" -d 'Show everything about the hooks with this name'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "explain" -d 'Say which hooks an event would run, in what order, and why the others would not'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "validate" -d 'Check every config source; exit 1 on an error (and with --strict, on a warning)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "schema" -d 'Print the JSON Schema of hooks.toml'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "completions" -d 'Print the completion script of SHELL (`hookrig completions bash > ...`)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "trust" -d 'Trust the project hooks and automation files of DIR as they are now, so that they run'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "install" -d 'Make hookrig the one hook of an agent host; the host\'s own hooks then run through hookrig'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "uninstall" -d 'Take hookrig out of an agent host\'s settings and put the host\'s hooks back'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "doctor" -d 'For each agent host on this machine: is hookrig installed, which of its hooks will run, which wait for `hookrig trust`, what hookrig cannot honour'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "plugins" -d 'Register plugin packages and enable them per agent'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "auto" -d 'The automations of the automation engine (`hookrig serve`) and their runs'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "serve" -d 'Run the automation engine: triggers, the file watcher, and the socket through which `hookrig emit` and `hookrig fire` reach it. Stops on SIGINT or SIGTERM'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "store" -d 'The store: its engine, schema and rows (`status`), and the copy of the SQLite store into PostgreSQL (`migrate --to`)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "ui" -d 'Open the web dashboard of `hookrig serve --ui` in a browser (starting a serve with the dashboard on a free loopback port when none runs); prints the link'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "engine" -d 'The resident engine that answers emits: run, start, status, stop'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "fire" -d 'Run an automation now, wait for it and print the run record (exit 1 when it failed)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "test" -d 'Run the hook tests of `.hookrig/tests/` and `$XDG_CONFIG_HOME/hookrig/tests/` in a sandbox; exit 1 when one fails. `--new EVENT` writes a case instead'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "replay" -d 'Emit the ledger\'s recorded events again against today\'s config, in a sandbox, and say which decisions would change and which hook changed them'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "why" -d 'Show every hook considered for one emit, and why it did or did not run'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "config" -d 'Show the merged config.toml and where each value came from'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "providers" -d 'The agent providers of config.toml'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "agent" -d 'Start a provider CLI on a task in its own git worktree; list, watch, stop, clean'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "plan" -d 'Plans: the board, what to do next, and checking a plan'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "task" -d 'Task actions: claim, unclaim, complete, block, unblock, assert'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and not __fish_seen_subcommand_from emit events runs list show explain validate schema completions trust install uninstall doctor plugins auto serve store ui engine fire test replay why config providers agent plan task help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plugins" -f -a "list" -d 'List the registered plugin packages and for which agents each is enabled'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plugins" -f -a "register" -d 'Register the plugin package in DIR (a directory with a plugin.json manifest)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plugins" -f -a "enable" -d 'Enable a package for one agent, or for every agent'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plugins" -f -a "disable" -d 'Disable a package for one agent, or for every agent'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plugins" -f -a "show" -d 'Show a package: its hooks, for whom it is enabled, the problems of its manifest; for a JavaScript plugin its subscriptions and tools, or why it fails to load'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plugins" -f -a "call" -d 'Call a tool a JavaScript plugin added with `ctx.tools.add`; prints its result as JSON'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plugins" -f -a "delete" -d 'Forget a package (and for whom it was enabled). Its files are left alone'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from auto" -f -a "add" -d 'Add (or update) the automation defined in FILE (TOML, or JSON when it ends in .json)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from auto" -f -a "list" -d 'List the automations'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from auto" -f -a "show" -d 'Show one automation'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from auto" -f -a "enable" -d 'Let the engine run an automation again'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from auto" -f -a "disable" -d 'Stop the engine from running an automation (`hookrig fire` still can)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from auto" -f -a "rm" -d 'Remove an automation and its runs'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from auto" -f -a "trust" -d 'Trust the project\'s `.hookrig/automations/*.toml` files as they are now'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from auto" -f -a "runs" -d 'List runs, newest first'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "status" -d 'The store\'s engine, schema version, rows per table, and the nodes that ran automations on it with their last heartbeat'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "migrate" -d 'Copy the SQLite store\'s automations, their runs, fired periods and nodes (and the other tables the database shares) into a PostgreSQL store, then check that every row is there. Rows the database holds already are kept, so running it again finishes a copy cut short'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from engine" -f -a "run" -d 'Run an engine in the foreground (emits only, no automations) until it is stopped, gets SIGINT/SIGTERM/SIGHUP, or has been idle for --idle'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from engine" -f -a "start" -d 'Start an engine in the background and wait until it answers'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from engine" -f -a "status" -d 'Show the running engine: pid, uptime, build, emits answered and under way'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from engine" -f -a "stop" -d 'Stop the running engine (emits under way get their answers first)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the merged config.toml, each value with the file and line it came from'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from providers" -f -a "list" -d 'List the providers (merged by id), whether each CLI is found, and its version'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "spawn" -d 'Claim TASK and start a provider CLI on it in the worktree `.hookrig/worktrees/TASK`'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "list" -d 'List the agents started by hookrig and whether they still run'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "watch" -d 'Keep agents working on a plan: start an agent on each ready task (up to --max at once) until the plan is complete or Ctrl-C'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "log" -d 'Follow an agent\'s log (every running agent of this repository without TASK) until it exits, then print how it exited'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "stop" -d 'End an agent: SIGTERM to its process group, SIGKILL after the grace period'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "clean" -d 'Remove a task\'s worktree, and its branch when merged into the current branch'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from agent" -f -a "__host" -d 'Internal: the detached process that runs and waits for a provider'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "board" -d 'Show the plan\'s tasks by state (kanban, tree, dag, json, or an external formatter)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "next" -d 'List what an agent should take next: its assignments among ready tasks, or all its assignments when none is ready'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "validate" -d 'Check a plan: built-in rules, then every validator script; exit 1 on an error (and with --strict, on a warning)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "claim" -d 'Claim a ready task (any task but a done one with --force)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "unclaim" -d 'Give a claimed task back'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "complete" -d 'Mark a task done'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "block" -d 'Block a task by hand (its dependents are not blocked by it)'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "unblock" -d 'Lift a manual block'
complete -c hookrig -n "__fish_hookrig_using_subcommand help; and __fish_seen_subcommand_from task" -f -a "assert" -d 'Append SPL statements to the plan, e.g. `hookrig task assert \'(given failed-api)\'`'
