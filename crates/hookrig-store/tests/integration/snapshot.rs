//! The store-row wire contract: what `hookrig why --json` prints comes from
//! here, so a change to it must show up in review.

use crate::fixtures::{TempStore, full_emit};

#[test]
fn stored_then_loaded_emit_record() {
    let t = TempStore::new();
    t.store.emits().record(&full_emit()).expect("record");
    let detail = t
        .store
        .emits()
        .detail("0196f1c2")
        .expect("lookup")
        .expect("found by prefix");
    insta::assert_json_snapshot!(detail);
}

#[test]
fn recent_emit_summary() {
    let t = TempStore::new();
    t.store.emits().record(&full_emit()).expect("record");
    let summaries = t
        .store
        .emits()
        .recent(&hookrig_store::EmitFilter::default())
        .expect("list");
    insta::assert_json_snapshot!(summaries);
}
