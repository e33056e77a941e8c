//! Exit codes of `hookrig`: part of the contract hosts rely on.

/// The event may proceed (allowed, maybe modified, or ask).
pub(crate) const PROCEED: u8 = 0;
/// hookrig itself failed: bad payload, broken config, bad arguments.
pub(crate) const FAILURE: u8 = 1;
// 2, the event was denied, is the host's answer: `hookrig_dialects::HostAnswer::DENIED`.
/// `hookrig task ...` named a task the plan does not declare (Hence's code).
pub(crate) const UNKNOWN_TASK: u8 = 8;
/// `hookrig engine status`: no engine runs.
pub(crate) const NOT_RUNNING: u8 = 3;
/// hookrig's terminal hung up: SIGHUP (128 + 1).
pub(crate) const HUNG_UP: u8 = 129;
/// hookrig was interrupted by SIGINT (128 + 2).
pub(crate) const INTERRUPTED: u8 = 130;
/// hookrig was terminated by SIGTERM (128 + 15).
pub(crate) const TERMINATED: u8 = 143;

/// The exit code of a hookrig stopped by `signal`: 128 + its number, as a shell reports
/// a process the signal ended.
pub(crate) fn stopped_by(signal: hookrig_runtime::StopSignal) -> u8 {
    use hookrig_runtime::StopSignal;
    match signal {
        StopSignal::HangUp => HUNG_UP,
        StopSignal::Interrupt => INTERRUPTED,
        StopSignal::Terminate => TERMINATED,
    }
}
