//! The page shell every page shares: the head, the navigation, and small pieces of
//! markup several pages use (a decision badge, a time, a CSRF field).

use maud::{DOCTYPE, Markup, html};

/// The pages of the navigation, with their paths.
const NAV: &[(&str, &str)] = &[
    ("Runs", "/runs"),
    ("Live", "/live"),
    ("Hooks", "/hooks"),
    ("Automations", "/automations"),
    ("Plans", "/plans"),
    ("Agents", "/agents"),
];

/// A whole page: `title`, the navigation with `current` marked, and `body`.
pub(crate) fn page(title: &str, current: &str, body: &Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · hookrig" }
                link rel="stylesheet" href="/assets/app.css";
                script src="/assets/app.js" defer {}
            }
            body {
                nav {
                    span.brand { "hookrig" }
                    @for (name, path) in NAV {
                        a href=(path) class=[(*path == current).then_some("current")] { (name) }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// The page a failed request shows.
pub(crate) fn error_page(message: &str) -> Markup {
    page(
        "Error",
        "",
        &html! {
            h1 { "Error" }
            p.error { (message) }
        },
    )
}

/// The hidden field every form posts back.
pub(crate) fn csrf_field(csrf: &str) -> Markup {
    html! { input type="hidden" name="csrf" value=(csrf); }
}

/// A decision (or a hook's result, or a run's status) as a coloured badge.
pub(crate) fn badge(text: &str) -> Markup {
    html! { span class={ "badge " (text) } { (text) } }
}

/// A time in ms since the Unix epoch, as the command line prints it (UTC).
pub(crate) fn time(ms: i64) -> String {
    hookrig_store::utc_text(ms)
}
