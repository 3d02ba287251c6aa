//! The order a server wrote a requested schema's properties in.
//!
//! A form asks its fields in the schema's property order: the order the
//! server's author chose (the required field first, related fields side by
//! side). The parsed schema cannot tell it: serde_json's maps are sorted
//! unless its `preserve_order` feature is on, and that feature would change
//! the maps of every crate in a workspace build. So the order is read from
//! the raw message text instead, as the connection receives it (the wire
//! tap, [`SchemaOrderTap`]): each frame that carries a `requestedSchema`
//! (an `elicitation/create` request, or an input request inside a
//! 2026-07-28 multi round-trip result) is scanned once for the keys of that
//! schema's `properties`, in order, and the list is kept for the form
//! ([`SchemaOrders::take`]).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};

use mcp_transport::{TapEvent, WireTap};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The member whose `properties` are scanned.
const SCHEMA_KEY: &str = "requestedSchema";

/// How many orders are kept per server before the oldest is dropped: 16
/// (a form takes its order within moments of the frame; more than a few
/// questions in flight at once is already unusual).
const KEPT_PER_SERVER: usize = 16;

/// The property orders received, per server, not yet taken by a form.
#[derive(Debug, Default)]
pub(crate) struct SchemaOrders {
    by_server: Mutex<BTreeMap<String, VecDeque<Vec<String>>>>,
}

impl SchemaOrders {
    /// Keeps the orders of every requested schema in `frame`, a message of
    /// `server` as received. A frame that does not parse is left alone: the
    /// client reports it, and its form (if any) falls back to the map's
    /// order.
    pub(crate) fn record(&self, server: &str, frame: &str) {
        if !frame.contains(SCHEMA_KEY) {
            return;
        }
        let found = match scan(frame) {
            Ok(found) => found,
            Err(e) => {
                tracing::debug!(server, error = %e, "no property order read from a frame");
                return;
            }
        };
        if found.is_empty() {
            return;
        }
        let mut all = self.by_server.lock().unwrap_or_else(|p| p.into_inner());
        let kept = all.entry(server.to_owned()).or_default();
        for order in found {
            if kept.len() == KEPT_PER_SERVER {
                kept.pop_front();
            }
            kept.push_back(order);
        }
    }

    /// The written order of `names` (the property names of a schema `server`
    /// sent), taken from the most recent recorded schema with exactly these
    /// names; `None` when none was recorded.
    pub(crate) fn take(&self, server: &str, names: &BTreeSet<&str>) -> Option<Vec<String>> {
        let mut all = self.by_server.lock().unwrap_or_else(|p| p.into_inner());
        let kept = all.get_mut(server)?;
        let at = kept.iter().rposition(|order| {
            order.len() == names.len() && order.iter().all(|n| names.contains(n.as_str()))
        })?;
        kept.remove(at)
    }
}

/// Records each received frame's schema orders into shared [`SchemaOrders`],
/// and passes every event on to the `--verbose` tap when there is one (a
/// connection has one tap).
pub(crate) struct SchemaOrderTap {
    orders: Arc<SchemaOrders>,
    then: Option<Arc<dyn WireTap>>,
}

impl SchemaOrderTap {
    /// A tap recording into `orders`, then showing the event to `then`.
    pub(crate) fn new(orders: Arc<SchemaOrders>, then: Option<Arc<dyn WireTap>>) -> Self {
        SchemaOrderTap { orders, then }
    }
}

impl fmt::Debug for SchemaOrderTap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaOrderTap")
            .field("verbose", &self.then.is_some())
            .finish_non_exhaustive()
    }
}

impl WireTap for SchemaOrderTap {
    fn observe(&self, label: &str, event: TapEvent<'_>) {
        if let TapEvent::Received(text) = event {
            self.orders.record(label, text);
        }
        if let Some(then) = &self.then {
            then.observe(label, event);
        }
    }
}

/// The property orders of every `requestedSchema` object in `frame`, in the
/// order they appear.
///
/// Errors: `frame` is not JSON.
pub(crate) fn scan(frame: &str) -> Result<Vec<Vec<String>>, serde_json::Error> {
    let mut found = Vec::new();
    let mut de = serde_json::Deserializer::from_str(frame);
    Walk { found: &mut found }.deserialize(&mut de)?;
    de.end()?;
    Ok(found)
}

/// The scalar visits of a visitor that passes over scalars: each gives
/// `$value` (a scalar is never a schema nor a properties object).
macro_rules! scalars_give {
    ($ty:ty, $value:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$ty, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$ty, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$ty, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$ty, E> {
            Ok($value)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$ty, E> {
            Ok($value)
        }
        fn visit_unit<E: de::Error>(self) -> Result<$ty, E> {
            Ok($value)
        }
    };
}

/// Walks any JSON value, looking for `requestedSchema` members.
struct Walk<'a> {
    found: &'a mut Vec<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == SCHEMA_KEY {
                map.next_value_seed(Schema {
                    found: &mut *self.found,
                })?;
            } else {
                map.next_value_seed(Walk {
                    found: &mut *self.found,
                })?;
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Walk {
                found: &mut *self.found,
            })?
            .is_some()
        {}
        Ok(())
    }

    scalars_give!((), ());
}

/// A `requestedSchema` value: records its `properties` keys when it is an
/// object that has them.
struct Schema<'a> {
    found: &'a mut Vec<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for Schema<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Schema<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a requested schema")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "properties" {
                if let Some(keys) = map.next_value::<Keys>()?.0 {
                    self.found.push(keys);
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    scalars_give!((), ());
}

/// The keys of a `properties` object in the order written, each once (a
/// repeated key keeps its first place); `None` when it is not an object.
struct Keys(Option<Vec<String>>);

impl<'de> de::Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Keys, D::Error> {
        d.deserialize_any(KeysVisitor)
    }
}

struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = Keys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a properties object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
        let mut keys: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<IgnoredAny>()?;
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        Ok(Keys(Some(keys)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Keys, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Keys(None))
    }

    scalars_give!(Keys, Keys(None));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<'a>(v: &'a [&'a str]) -> BTreeSet<&'a str> {
        v.iter().copied().collect()
    }

    #[test]
    fn the_written_order_is_read_from_the_frame() {
        // server-everything's form: the only required field, `name`, first.
        let frame = r#"{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{
            "message":"m","requestedSchema":{"type":"object","properties":{
              "name":{"type":"string","description":"a \"properties\" word"},
              "check":{"type":"boolean"},"firstLine":{"type":"string","default":"x"},
              "email":{"type":"string","format":"email"}},"required":["name"]}}}"#;
        assert_eq!(
            scan(frame).unwrap(),
            [vec!["name", "check", "firstLine", "email"]]
        );
    }

    #[test]
    fn schemas_nested_in_a_result_and_batches_are_found() {
        // A 2026-07-28 input_required result with two input requests, in a batch.
        let frame = r#"[{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",
            "inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m",
              "requestedSchema":{"properties":{"z":{},"a":{},"m":{}}}}},
            "b":{"method":"elicitation/create","params":{"message":"m",
              "requestedSchema":{"type":"object","properties":{"\u0062eta":{},"alpha":{}}}}}}}},
            {"jsonrpc":"2.0","method":"notifications/message","params":{"requestedSchema":7}}]"#;
        assert_eq!(
            scan(frame).unwrap(),
            [vec!["z", "a", "m"], vec!["beta", "alpha"]]
        );
        assert!(scan("not json").is_err());
        assert!(
            scan(r#"{"requestedSchema":{"properties":[1]}}"#)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_form_takes_the_order_of_its_own_schema() {
        let orders = SchemaOrders::default();
        orders.record(
            "s",
            r#"{"params":{"requestedSchema":{"properties":{"b":{},"a":{}}}}}"#,
        );
        orders.record(
            "s",
            r#"{"params":{"requestedSchema":{"properties":{"y":{},"x":{}}}}}"#,
        );
        assert_eq!(orders.take("other", &names(&["a", "b"])), None);
        assert_eq!(orders.take("s", &names(&["a", "c"])), None);
        assert_eq!(
            orders.take("s", &names(&["a", "b"])),
            Some(vec!["b".to_owned(), "a".to_owned()])
        );
        // Taken once.
        assert_eq!(orders.take("s", &names(&["a", "b"])), None);
        assert_eq!(
            orders.take("s", &names(&["x", "y"])),
            Some(vec!["y".to_owned(), "x".to_owned()])
        );
    }

    #[test]
    fn the_kept_orders_are_bounded() {
        let orders = SchemaOrders::default();
        for i in 0..(KEPT_PER_SERVER + 5) {
            orders.record(
                "s",
                &format!(r#"{{"requestedSchema":{{"properties":{{"p{i}":{{}}}}}}}}"#),
            );
        }
        assert_eq!(orders.take("s", &names(&["p0"])), None);
        assert!(orders.take("s", &names(&["p20"])).is_some());
    }
}
