//! Hence's hook points: the `[hooks]` keys of `config.toml` and the names of Hence's
//! lifecycle hook scripts. Which canonical event each listens to is Hence's event table,
//! in hookrig-dialects.

/// Hence's hook points, each fired after one task or plan state change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookPoint {
    /// After `task claim`.
    PostClaim,
    /// After `task complete`.
    PostComplete,
    /// After `task block`.
    PostBlock,
    /// After `task unblock`.
    PostUnblock,
    /// After `task assert`.
    PostAssert,
    /// After every task of the plan reached completed.
    PostPlanComplete,
}

impl HookPoint {
    /// Every hook point, in Hence's order: the claim, the task's other actions, then the
    /// plan's.
    pub const ALL: [HookPoint; 6] = [
        HookPoint::PostClaim,
        HookPoint::PostComplete,
        HookPoint::PostBlock,
        HookPoint::PostUnblock,
        HookPoint::PostAssert,
        HookPoint::PostPlanComplete,
    ];

    /// The hook (and script file) name: `post-complete`.
    pub fn name(self) -> &'static str {
        match self {
            HookPoint::PostClaim => "post-claim",
            HookPoint::PostComplete => "post-complete",
            HookPoint::PostBlock => "post-block",
            HookPoint::PostUnblock => "post-unblock",
            HookPoint::PostAssert => "post-assert",
            HookPoint::PostPlanComplete => "post-plan-complete",
        }
    }

    /// The hook point's key in `[hooks]` of `config.toml`: `post_complete`.
    pub fn key(self) -> String {
        self.name().replace('-', "_")
    }

    /// `HENCE_EVENT`: the hook name without `post-`.
    pub fn hence_event(self) -> &'static str {
        match self {
            HookPoint::PostClaim => "claim",
            HookPoint::PostComplete => "complete",
            HookPoint::PostBlock => "block",
            HookPoint::PostUnblock => "unblock",
            HookPoint::PostAssert => "assert",
            HookPoint::PostPlanComplete => "plan-complete",
        }
    }
}
