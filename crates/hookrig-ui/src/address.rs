//! Where a running dashboard listens: `hookrig serve --ui` writes its address to a file
//! in the user's state directory, and `hookrig ui` reads it to open the dashboard (or
//! to learn that it must start a serve).

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long [`running`] waits for the recorded address to accept a connection.
const CONNECT_LIMIT: Duration = Duration::from_millis(300);

/// The file holding the address of the dashboard of `state_home`'s user.
pub fn address_path(state_home: &Path) -> PathBuf {
    state_home.join("hookrig").join("ui.addr")
}

/// Records `address` as where the dashboard listens.
pub fn record_address(state_home: &Path, address: SocketAddr) -> std::io::Result<()> {
    let path = address_path(state_home);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, format!("{address}\n"))
}

/// The recorded address, when a dashboard answers there now.
pub fn running(state_home: &Path) -> Option<SocketAddr> {
    let text = std::fs::read_to_string(address_path(state_home)).ok()?;
    let address: SocketAddr = text.trim().parse().ok()?;
    TcpStream::connect_timeout(&address, CONNECT_LIMIT)
        .ok()
        .map(|_| address)
}

/// The link that opens the dashboard at `address` with `token` (the browser keeps the
/// token in a cookie and drops it from the address bar).
pub fn url(address: SocketAddr, token: &str) -> String {
    format!("http://{address}/runs?token={token}")
}
