//! Webhooks: the checks of a hook or a notifier that POSTs to a URL (its URL, headers
//! and secret variable), shared by every loader that reads one.

/// An absolute `http://` or `https://` URL with a host.
pub fn check_url(text: &str) -> Result<(), String> {
    let url =
        url::Url::parse(text).map_err(|err| format!("{err}; write url = \"http://host/path\""))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "scheme `{}` is not http or https; write url = \"http://host/path\"",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("the URL has no host".to_owned());
    }
    Ok(())
}

/// A name the environment can hold.
pub fn check_env_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the variable name is empty".to_owned());
    }
    if name.contains(['=', '\0']) {
        return Err("a variable name cannot contain `=` or NUL".to_owned());
    }
    Ok(())
}

/// Headers hookrig sets itself; a hook may not replace them.
const RESERVED_HEADERS: &[&str] = &[
    "content-type",
    "content-length",
    "x-hookrig-event",
    "x-hookrig-signature",
];

/// An HTTP header a hook may add.
pub fn check_header(name: &str, value: &str) -> Result<(), String> {
    // RFC 9110 `token`.
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err("not a valid header name".to_owned());
    }
    if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
        return Err("hookrig sets this header itself".to_owned());
    }
    // Visible ASCII, spaces and tabs, and non-ASCII (obs-text): no control characters,
    // which would split the request.
    if value
        .chars()
        .any(|c| (c.is_ascii_control() && c != '\t') || c == '\u{7f}')
    {
        return Err("the value contains a control character".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(check_url("http://127.0.0.1:8080/h?x=1"), Ok(()));
        assert_eq!(check_url("https://example.com"), Ok(()));
        assert_eq!(
            check_url("example.com/hook"),
            Err("relative URL without a base; write url = \"http://host/path\"".to_owned())
        );
        assert_eq!(
            check_url("ftp://example.com/"),
            Err("scheme `ftp` is not http or https; write url = \"http://host/path\"".to_owned())
        );
        assert_eq!(
            check_url("http://:80/"),
            Err("empty host; write url = \"http://host/path\"".to_owned())
        );
    }

    #[test]
    fn headers_and_variable_names() {
        assert_eq!(check_header("Authorization", "Bearer x"), Ok(()));
        assert_eq!(check_header("X-Trace", "a\tb é"), Ok(()));
        assert!(check_header("Bad Name", "x").is_err());
        assert!(check_header("", "x").is_err());
        assert!(check_header("X-A", "a\r\nInjected: 1").is_err());
        assert_eq!(
            check_header("x-hookrig-signature", "forged"),
            Err("hookrig sets this header itself".to_owned())
        );
        assert_eq!(check_env_name("HOOK_SECRET"), Ok(()));
        assert!(check_env_name("").is_err());
        assert!(check_env_name("A=B").is_err());
    }
}
