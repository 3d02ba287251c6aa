//! Strategies shared by the property tests of this crate.

use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value, a few levels deep, with strings (values and member
/// names) from `strings`.
pub(crate) fn json_value<S>(strings: fn() -> S) -> impl Strategy<Value = Value>
where
    S: Strategy<Value = String> + 'static,
{
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        strings().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(strings(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
