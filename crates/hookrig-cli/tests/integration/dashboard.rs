//! The dashboard of `hookrig serve --ui`, driven in a real Chromium through chromedriver
//! (WebDriver): a serve with a seeded ledger, project hooks, a plan and an automation;
//! each page loaded, runs filtered and opened, a changed hook trusted, an automation
//! fired and its run seen live, a task moved by `hookrig task complete` in a terminal.
//! Screenshots of each page go to `target/ui-screenshots/`.
//!
//! Chromium starts once for the whole walk (it is the slow part), so the scenarios are
//! steps of one test. The test skips itself where chromedriver is not installed, except
//! under `HOOKRIG_TEST_REQUIRE_TOOLS=1` (CI), where that fails.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hookrig_test_support::TestEnv;
use serde_json::json;

use crate::harness::{code, emit, hookrig, test_env, text, tool_available};
use crate::serve::{Serve, wait_for};

/// How long the page may take to show something before the test fails.
const LIMIT: Duration = Duration::from_mins(1);

const HOOKS: &str = r#"
[[hooks]]
name = "guard"
events = ["tool.before"]
matcher = "bash"
exec = ["sh", "-c", "if grep -q 'rm -rf'; then printf '{\"decision\":\"deny\",\"reason\":\"rm -rf is not allowed\"}'; else cat >/dev/null; fi"]

[[hooks]]
name = "tagger"
events = ["tool.before"]
matcher = "write_file"
command = "./tagger.sh"
"#;

/// The script of the hook `tagger`, next to the hooks file.
const TAGGER: &str = "#!/bin/sh\n# Marks every write as checked.\ncat >/dev/null; printf '{\"decision\":\"modify\",\"payload\":{\"checked\":true}}'\n";

const PLAN: &str = "
(given task-design)
(meta task-design (description \"Sketch the data model\"))
(given task-build)
(given (assign design coder))
(given (assign build coder))
(normally r-ready-design task-design ready-design)
(normally r-ready-build (and task-build completed-design) ready-build)
";

const AUTOMATION: &str = r#"
name = "Nightly digest"
id = "digest"
cooldown_seconds = 0
[trigger]
type = "event"
event_type = "custom.never"
skip_llm = true
"#;

/// `chromedriver` on a free loopback port, killed when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        wait_for("chromedriver to listen", || {
            std::net::TcpStream::connect(("127.0.0.1", port))
                .ok()
                .map(drop)
        });
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless Chromium session and the runtime its client needs.
struct Browser {
    runtime: tokio::runtime::Runtime,
    client: Client,
    base: String,
    shots: PathBuf,
}

impl Browser {
    fn open(driver: &Driver, base: String) -> Browser {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".to_owned(),
            json!({"args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                            "--disable-dev-shm-usage", "--window-size=1280,900"]}),
        );
        let client = runtime
            .block_on(
                ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
                    .capabilities(capabilities)
                    .connect(&driver.url),
            )
            .expect("a Chromium session");
        // target/ui-screenshots: CI keeps it as an artefact.
        let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .parent()
            .expect("the target directory")
            .join("ui-screenshots");
        std::fs::create_dir_all(&shots).expect("create target/ui-screenshots");
        Browser {
            runtime,
            client,
            base,
            shots,
        }
    }

    fn goto(&self, path: &str) {
        let url = format!("{}{path}", self.base);
        self.runtime
            .block_on(self.client.goto(&url))
            .unwrap_or_else(|err| panic!("open {url}: {err}"));
    }

    /// The text of every element `css` selects.
    fn texts(&self, css: &str) -> Vec<String> {
        self.runtime.block_on(async {
            let mut texts = Vec::new();
            for element in self
                .client
                .find_all(Locator::Css(css))
                .await
                .unwrap_or_default()
            {
                texts.push(element.text().await.unwrap_or_default());
            }
            texts
        })
    }

    /// Waits until `css` selects at least one element, and returns their texts.
    /// Waits until the first element `css` finds has a text `done` accepts; that text.
    fn wait_until(&self, what: &str, css: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + LIMIT;
        loop {
            let found = self.texts(css);
            if let Some(text) = found.first().filter(|text| done(text)) {
                return text.clone();
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what} ({css}): {found:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_for(&self, what: &str, css: &str) -> Vec<String> {
        let deadline = Instant::now() + LIMIT;
        loop {
            let found = self.texts(css);
            if !found.is_empty() {
                return found;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what} ({css})"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn click(&self, css: &str) {
        self.runtime.block_on(async {
            self.client
                .find(Locator::Css(css))
                .await
                .unwrap_or_else(|err| panic!("find {css}: {err}"))
                .click()
                .await
                .unwrap_or_else(|err| panic!("click {css}: {err}"));
        });
    }

    fn type_into(&self, css: &str, value: &str) {
        self.runtime.block_on(async {
            let field = self
                .client
                .find(Locator::Css(css))
                .await
                .unwrap_or_else(|err| panic!("find {css}: {err}"));
            field.clear().await.expect("clear the field");
            field.send_keys(value).await.expect("type");
        });
    }

    fn screenshot(&self, name: &str) {
        let png = self
            .runtime
            .block_on(self.client.screenshot())
            .expect("a screenshot");
        std::fs::write(self.shots.join(format!("{name}.png")), png).expect("save the screenshot");
    }

    fn close(self) {
        let Browser {
            runtime, client, ..
        } = self;
        let _ = runtime.block_on(client.close());
    }
}

/// The address serve printed for its dashboard.
fn dashboard_address(serve: &Serve) -> String {
    wait_for("the dashboard's address", || {
        serve
            .stderr()
            .lines()
            .find_map(|line| line.strip_prefix("hookrig serve: dashboard on "))
            .and_then(|rest| rest.split_whitespace().next())
            .map(|url| url.trim_end_matches('/').to_owned())
    })
}

/// Emits `tool.before` for `tool` running `command` as `agent`; returns the run id.
fn emit_tool(env: &TestEnv, agent: &str, tool: &str, command: &str) -> String {
    let payload =
        json!({"tool": {"name": tool, "input": {"command": command, "path": "notes.md"}}});
    emit(
        env,
        &["tool.before", "--agent", agent],
        &payload.to_string(),
    )
    .run_id()
}

#[test]
fn the_dashboard_in_a_real_browser() {
    if !tool_available("chromedriver") {
        return;
    }
    let env = test_env();
    env.write_project_config(HOOKS);
    env.write_script(".hookrig/tagger.sh", TAGGER);
    std::fs::write(env.project().join("plan.spl"), PLAN).expect("write the plan");
    let automation = env.project().join("digest.toml");
    std::fs::write(&automation, AUTOMATION).expect("write the automation");
    let added = hookrig(&env, &["auto", "add", automation.to_str().expect("UTF-8")]);
    assert_eq!(code(&added), 0, "{}", text(&added.stderr));

    // The ledger: three allowed runs of alice, two denied of bob, one modified.
    for _ in 0..3 {
        emit_tool(&env, "alice", "bash", "ls");
    }
    for _ in 0..2 {
        emit_tool(&env, "bob", "bash", "rm -rf /");
    }
    let modified = emit_tool(&env, "alice", "write_file", "");

    // Trusted as they are now, then one hook's definition and the other's script
    // change: the dashboard must show what changed and ask again.
    let trusted = env.run_untrusted(["trust"], b"");
    assert_eq!(code(&trusted), 0, "{}", text(&trusted.stderr));
    env.write_project_config(&HOOKS.replace("matcher = \"bash\"", "matcher = \"bash|sh\""));
    env.write_script(
        ".hookrig/tagger.sh",
        &TAGGER.replace("cat >/dev/null; printf", "cat >/dev/null && printf"),
    );

    let serve = Serve::start_with(
        &env,
        env.untrusted_command(["--plan", "plan.spl", "serve", "--ui", "127.0.0.1:0"]),
    );
    let base = dashboard_address(&serve);
    let token = hookrig_runtime::http::token(&env.state_home()).expect("the token");

    let driver = Driver::start();
    let browser = Browser::open(&driver, base);

    runs_are_listed_filtered_and_paged(&browser, &token);
    a_run_shows_every_hook_and_the_payload_diff(&browser, &modified);
    a_changed_hook_is_trusted_after_its_change_is_shown(&browser);
    new_runs_appear_live(&browser, &env);
    a_fired_automation_runs_and_appears(&browser);
    a_task_completed_in_a_terminal_moves_column(&browser, &env);
    agents_page_loads(&browser);

    browser.close();
    serve.stop_cleanly();
}

fn runs_are_listed_filtered_and_paged(browser: &Browser, token: &str) {
    // Without the token: refused.
    browser.goto("/runs");
    assert!(
        browser.texts("p.error")[0].contains("hookrig ui"),
        "{:?}",
        browser.texts("main")
    );
    // The link `hookrig ui` prints: the token becomes a cookie and leaves the address.
    browser.goto(&format!("/runs?token={token}"));
    let url = browser
        .runtime
        .block_on(browser.client.current_url())
        .expect("the address");
    assert!(!url.as_str().contains("token"), "{url}");
    assert_eq!(browser.texts("#runs tbody tr").len(), 6);
    browser.screenshot("runs");

    // Filter by decision with the form.
    browser.click("select[name=decision] option[value=deny]");
    browser.click("form.filters button[type=submit]");
    browser.wait_for("the filtered page", "#runs tbody tr");
    let decisions = browser.texts("#runs tbody td.decision");
    assert_eq!(decisions, ["deny", "deny"]);

    // And by agent, with the decision cleared.
    browser.click("select[name=decision] option[value='']");
    browser.type_into("input[name=agent]", "alice");
    browser.click("form.filters button[type=submit]");
    browser.wait_for("the filtered page", "#runs tbody tr");
    let agents: Vec<String> = browser.texts("#runs tbody tr td:nth-child(4)");
    assert_eq!(agents, ["alice", "alice", "alice", "alice"]);
    assert!(browser.texts("#older").is_empty(), "one page holds them");
}

fn a_run_shows_every_hook_and_the_payload_diff(browser: &Browser, run: &str) {
    browser.goto(&format!("/runs/{run}"));
    let hooks = browser.texts("#hooks tbody tr td:first-child");
    assert_eq!(hooks, ["guard", "tagger"]);
    let guard = browser.texts("#hooks tr[data-hook=guard] td:nth-child(4)");
    assert!(guard[0].contains("did not match"), "{guard:?}");
    let added = browser.texts("#payload-diff .ins");
    assert!(
        added.iter().any(|line| line.contains("\"checked\": true")),
        "{added:?}"
    );
    browser.screenshot("run");
}

fn a_changed_hook_is_trusted_after_its_change_is_shown(browser: &Browser) {
    browser.goto("/hooks");
    let untrusted = browser.texts("#untrusted .untrusted");
    assert_eq!(untrusted.len(), 2, "{untrusted:?}");
    // The definition as trusted (-) and as it is now (+), only the changed line. Lines
    // are compared with their blanks squeezed: indentation is not what is checked.
    let changed = |hook: &str, part: &str, tag: &str| -> Vec<String> {
        browser
            .texts(&format!(
                "#untrusted .untrusted[data-hook={hook}] pre.{part} .{tag}"
            ))
            .iter()
            .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(
        changed("guard", "definition", "del"),
        [r#"- "matcher": "bash","#]
    );
    assert_eq!(
        changed("guard", "definition", "ins"),
        [r#"+ "matcher": "bash|sh","#]
    );
    assert!(changed("guard", "script", "ins").is_empty(), "no script");
    // The script's changed line, with the unchanged ones around it.
    assert_eq!(
        changed("tagger", "script", "del"),
        [r#"- cat >/dev/null; printf '{"decision":"modify","payload":{"checked":true}}'"#]
    );
    assert_eq!(
        changed("tagger", "script", "ins"),
        [r#"+ cat >/dev/null && printf '{"decision":"modify","payload":{"checked":true}}'"#]
    );
    assert_eq!(
        changed("tagger", "script", "same"),
        ["#!/bin/sh", "# Marks every write as checked."]
    );
    assert!(
        changed("tagger", "definition", "del").is_empty(),
        "{untrusted:?}"
    );
    browser.screenshot("hooks-untrusted");
    browser.click("#trust");
    browser.wait_for("the hooks list", "#hooklist");
    assert!(browser.texts("#untrusted").is_empty());
    assert_eq!(browser.texts("#hooklist td.trust"), ["trusted", "trusted"]);

    // Explain, from the form.
    browser.type_into("#explain input[name=event]", "PreToolUse");
    browser.type_into("#explain input[name=tool]", "bash");
    browser.click("#explain button");
    browser.wait_for("the explanation", "#explained");
    let would = browser.texts("#explained tbody td:last-child");
    assert_eq!(would.len(), 2, "{would:?}");
    assert_eq!(would[0], "runs");
    assert!(would[1].contains("did not match"), "{would:?}");
    browser.screenshot("hooks");
}

fn new_runs_appear_live(browser: &Browser, env: &TestEnv) {
    browser.goto("/live");
    browser.wait_until("the stream to open", "#live-status", |status| {
        status.starts_with("Live")
    });
    let run = emit_tool(env, "carol", "bash", "rm -rf /tmp/x");
    // The row may first appear `running` (the emit records it before its hook runs);
    // the page then replaces it with how the emit ended.
    let row = browser.wait_until(
        "the new run, ended",
        &format!("#runs tr[data-run='{run}']"),
        |row| !row.contains("running"),
    );
    assert!(row.contains("carol") && row.contains("deny"), "{row:?}");
    browser.wait_for("the chart", "#chart rect.emits");
    browser.screenshot("live");
}

fn a_fired_automation_runs_and_appears(browser: &Browser) {
    browser.goto("/automations");
    let listed = browser.texts("#automations tr[data-automation=digest]");
    assert!(listed[0].contains("event:custom.never"), "{listed:?}");
    browser.screenshot("automations");
    browser.goto("/automations/digest");
    assert!(browser.texts("details.run").is_empty());
    browser.click("#fire");
    browser.wait_for(
        "the fired run to complete",
        "details.run[data-status=completed]",
    );
    let run = browser.texts("details.run summary");
    assert!(run[0].contains("manual"), "{run:?}");
    browser.screenshot("automation");
}

fn a_task_completed_in_a_terminal_moves_column(browser: &Browser, env: &TestEnv) {
    browser.goto("/plans");
    browser.wait_for(
        "design to be ready",
        ".column[data-state=ready] .card[data-task=design]",
    );
    for action in ["claim", "complete"] {
        let out = hookrig(
            env,
            &[
                "task", action, "design", "-f", "plan.spl", "--agent", "coder",
            ],
        );
        assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    }
    browser.wait_for(
        "design to move to done",
        ".column[data-state=done] .card[data-task=design]",
    );
    browser.wait_for(
        "build to become ready",
        ".column[data-state=ready] .card[data-task=build]",
    );
    // The history says who did what (the ledger's rows may come after the file).
    browser.wait_for(
        "the completion in the history",
        "#task-history tbody tr:nth-child(2)",
    );
    let history = browser.texts("#task-history tbody tr");
    assert_eq!(history.len(), 2, "{history:?}");
    assert!(
        history[0].contains("task.completed") && history[0].contains("coder"),
        "{history:?}"
    );
    assert!(history[1].contains("task.claimed"), "{history:?}");
    browser.screenshot("plans");
}

fn agents_page_loads(browser: &Browser) {
    browser.goto("/agents");
    let empty = browser.texts("main p.empty");
    assert!(empty[0].contains("No agents recorded"), "{empty:?}");
}

/// An agent spawned on a task of a real git repository, with a fake provider (a real
/// process, found on `PATH` as a configured provider's CLI): the page shows its task,
/// worktree and log, and its Stop button ends its whole process group.
#[test]
fn an_agent_is_shown_and_stopped_in_a_real_browser() {
    use crate::agents::{FAKE, agents_json, fake_provider, ok, recorded, repo, spawn};

    if !tool_available("chromedriver") {
        return;
    }
    let env = test_env();
    repo(&env);
    env.write_file(".hookrig/config.toml", FAKE);
    let sleep = env.marked_sleep();
    fake_provider(
        &env,
        "fake-agent",
        &format!(
            "echo working on the login endpoint\n'{0}' 300 &\nwait",
            sleep.display()
        ),
    );
    ok(&spawn(&env, "api", &[]));
    recorded(&env, "fake-agent");

    let serve = Serve::start_with(&env, env.command(["serve", "--ui", "127.0.0.1:0"]));
    let base = dashboard_address(&serve);
    let token = hookrig_runtime::http::token(&env.state_home()).expect("the token");
    let driver = Driver::start();
    let browser = Browser::open(&driver, base);

    browser.goto(&format!("/agents?token={token}"));
    let row = browser.wait_for("the agent", "#agents tr[data-task=api]");
    assert!(
        row[0].contains("coder") && row[0].contains("fake") && row[0].contains("running"),
        "{row:?}"
    );
    let worktree = browser.texts("#agents tr[data-task=api] td.path");
    assert!(worktree[0].ends_with("api"), "{worktree:?}");
    browser.screenshot("agents");

    // The log's tail: what the provider wrote on its terminal.
    browser.click("#agents tr[data-task=api] a");
    let deadline = Instant::now() + LIMIT;
    while !browser.texts("#log")[0].contains("working on the login endpoint") {
        assert!(Instant::now() < deadline, "the log never showed the output");
        std::thread::sleep(Duration::from_millis(100));
        browser.goto("/agents/api/log");
    }
    browser.screenshot("agent-log");

    // Stop: the provider and what it started go away.
    browser.goto("/agents");
    browser.click("#agents tr[data-task=api] button.stop");
    // The page the stop answers with (or, while it stops, the one it replaces).
    let deadline = Instant::now() + LIMIT;
    while !browser
        .texts("#agents tr[data-task=api] button.stop")
        .is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "the agent was never shown stopped"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let row = browser.wait_for("the stopped agent", "#agents tr[data-task=api]");
    assert!(row[0].contains("ended"), "{row:?}");
    assert!(env.leftovers().is_empty(), "a process of the agent is left");
    let listed = agents_json(&env).remove(0);
    assert_eq!(listed["running"], false, "{listed}");
    assert!(!listed["stopped_at_ms"].is_null(), "{listed}");

    browser.close();
    serve.stop_cleanly();
}
