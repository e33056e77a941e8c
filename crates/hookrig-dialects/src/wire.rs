//! What every dialect's wire types share: how a field is read when hookrig is lenient
//! about it, and how a field keeps an explicit `null`.
//!
//! Each dialect's `wire.rs` holds one struct per format, used in both directions: the
//! hook side (what hookrig writes on a hook's stdin, what it parses from a hook's
//! stdout) and the host side (what a host sends hookrig, what hookrig answers). The
//! structs follow one rule: a field whose value hookrig interprets has its Rust type,
//! read with the leniency hookrig has always had for it ([`loose`]: a value of another
//! type counts as absent; [`Shaped`]: an object is read, anything else is kept for the
//! reader to refuse in its own words); a field hookrig only carries between a host and
//! the canonical payload is a [`Value`], read with [`present`] so that an explicit `null`
//! travels on as `null`. Fields are declared in the format's own order, which is the
//! order they are written in.

use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Reads a field that is there, `null` included, as `Some`: a plain `Option<Value>`
/// would read `null` as absent, and a host's `null` would not reach the hooks.
pub(crate) fn present<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Whether an optional field is left out when written: a field hookrig has no value for
/// is not written at all (`skip_serializing_if = "absent"`).
#[expect(
    clippy::ref_option,
    reason = "serde's skip_serializing_if passes the field by reference"
)]
pub(crate) fn absent<T>(field: &Option<T>) -> bool {
    field.is_none()
}

/// Reads a field as `T`, and a value of another type as absent: hookrig reads these
/// fields with `as_str`-style leniency, so a hook that writes `"reason": 5` is not
/// refused for it.
pub(crate) fn loose<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

/// A field that is a `T` when its value is a JSON object of `T`'s shape, and the value as
/// written otherwise, so that the reader can refuse it with its own words (or carry it
/// on unchanged).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shaped<T> {
    /// An object read as `T`.
    Typed(T),
    /// Anything else, as written.
    Other(Value),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Shaped<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        // Only an object is read as `T`: serde would also read a struct from an array,
        // by position, which no dialect means.
        if !value.is_object() {
            return Ok(Shaped::Other(value));
        }
        Ok(match T::deserialize(&value) {
            Ok(typed) => Shaped::Typed(typed),
            Err(_) => Shaped::Other(value),
        })
    }
}

impl<T: Serialize> Serialize for Shaped<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Shaped::Typed(typed) => typed.serialize(serializer),
            Shaped::Other(value) => value.serialize(serializer),
        }
    }
}

/// Checks that a struct reads back as it was written, and returns its JSON text (for a
/// snapshot): the round trip every wire type has a test for.
#[cfg(test)]
pub(crate) fn round_trip<T>(text: &str) -> String
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let parsed: T = serde_json::from_str(text).expect("the example parses");
    let written = serde_json::to_string(&parsed).expect("a wire type always serializes");
    let reparsed: T = serde_json::from_str(&written).expect("what was written parses");
    assert_eq!(parsed, reparsed, "{written}");
    written
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Inner {
        #[serde(default, deserialize_with = "loose", skip_serializing_if = "absent")]
        name: Option<String>,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Outer {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "absent")]
        carried: Option<Value>,
        #[serde(default, skip_serializing_if = "absent")]
        inner: Option<Shaped<Inner>>,
    }

    #[test]
    fn null_is_present_and_ill_typed_is_absent_or_kept() {
        let outer: Outer =
            serde_json::from_value(json!({"carried": null, "inner": {"name": 5}})).expect("reads");
        assert_eq!(outer.carried, Some(Value::Null));
        assert_eq!(outer.inner, Some(Shaped::Typed(Inner { name: None })));
        let outer: Outer = serde_json::from_value(json!({"inner": ["x"]})).expect("reads");
        assert_eq!(outer.inner, Some(Shaped::Other(json!(["x"]))));
        assert_eq!(
            serde_json::to_string(&outer).expect("writes"),
            r#"{"inner":["x"]}"#
        );
        assert_eq!(
            round_trip::<Outer>(r#"{"carried":null}"#),
            r#"{"carried":null}"#
        );
    }
}

/// A JSON object in file order: a settings file's events and headers are kept in the order
/// written, which a map would lose.
#[derive(Debug)]
pub(crate) struct Ordered<V>(pub(crate) Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for OrderedVisitor<V> {
            type Value = Ordered<V>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(OrderedVisitor(std::marker::PhantomData))
    }
}
