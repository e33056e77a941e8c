//! The xcode dialect end to end: its hooks run unchanged, presented and read by its own rules.
