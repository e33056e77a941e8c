//! The gate every page goes through: the engine's HTTP token, given once in the link
//! `hookrig ui` opens (`?token=T`) and kept in a cookie the browser sends to this origin
//! only (`HttpOnly`, `SameSite=Strict`); and the CSRF token each form posts back.

use std::fmt::Write as _;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::dashboard::Dashboard;
use crate::errors::UiError;

/// The cookie that carries the token.
const COOKIE: &str = "hookrig_ui";

/// The CSRF token of `token`: an HMAC of a fixed label, so that it is the same for every
/// page of a serve (forms of an old tab still work) and tells nothing of the token.
pub(crate) fn csrf_token(token: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(token.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(b"hookrig dashboard csrf");
    mac.finalize()
        .into_bytes()
        .iter()
        .fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// Lets a request with the token through; turns `?token=T` into the cookie and sends the
/// browser on to the same page without it, so that the token does not stay in the
/// address bar or the history.
pub(crate) async fn gate(
    State(dashboard): State<Dashboard>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(given) = query_token(request.uri().query()) {
        if !same(&given, dashboard.token()) {
            return UiError::Unauthorized.into_response();
        }
        let path = request.uri().path().to_owned();
        let cookie = format!("{COOKIE}={given}; HttpOnly; SameSite=Strict; Path=/");
        let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, path)]).into_response();
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        return response;
    }
    match cookie_token(request.headers()) {
        Some(given) if same(&given, dashboard.token()) => next.run(request).await,
        _ => UiError::Unauthorized.into_response(),
    }
}

/// Refuses a POST whose form does not carry the page's CSRF token.
pub(crate) fn check_csrf(dashboard: &Dashboard, given: &str) -> Result<(), UiError> {
    if same(given, dashboard.csrf()) {
        Ok(())
    } else {
        Err(UiError::Csrf)
    }
}

fn query_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .map(str::to_owned)
}

fn cookie_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))
        .map(str::to_owned)
}

/// Compares in time that does not depend on where the texts differ.
fn same(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csrf_token_is_not_the_token_and_is_stable() {
        assert_ne!(csrf_token("secret"), "secret");
        assert_eq!(csrf_token("secret"), csrf_token("secret"));
        assert_ne!(csrf_token("secret"), csrf_token("other"));
    }

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("a=b; hookrig_ui=t0k; c=d"),
        );
        assert_eq!(cookie_token(&headers).as_deref(), Some("t0k"));
        assert_eq!(query_token(Some("x=1&token=abc")).as_deref(), Some("abc"));
        assert_eq!(query_token(Some("tokens=abc")), None);
    }
}
