use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{Value, json};

use super::write;

/// What our serializer writes for `value`, and the JSON type it says.
fn ours<T: Serialize + ?Sized>(value: &T) -> Result<(String, &'static str), String> {
    let mut out = Vec::new();
    let kind = write(&mut out, value).map_err(|e| e.to_string())?;
    Ok((String::from_utf8(out).expect("UTF-8"), kind))
}

/// Our output is serde_json's, byte for byte, and the type we report is
/// the type of the value serde_json reads back.
fn same<T: Serialize + ?Sized + std::fmt::Debug>(value: &T) {
    let expected = serde_json::to_string(value).expect("serde_json serializes it");
    let (written, kind) = ours(value).expect("ours serializes it");
    assert_eq!(written, expected, "{value:?}");
    let read: Value = serde_json::from_str(&written).expect("JSON");
    assert_eq!(kind, crate::json_type(&read), "{value:?}");
}

#[derive(Debug, Serialize)]
struct Unit;

#[derive(Debug, Serialize)]
struct Newtype(String);

#[derive(Debug, Serialize)]
struct Pair(i32, &'static str);

#[derive(Debug, Serialize)]
enum Shape {
    Dot,
    Circle(f64),
    Segment(i64, i64),
    Rect { w: u32, h: u32 },
}

#[derive(Debug, Serialize)]
#[serde(tag = "type")]
enum Tagged {
    Text { text: String },
    Empty,
}

#[derive(Debug, Serialize)]
struct Everything<'a> {
    text: &'a str,
    escapes: String,
    unicode: &'a str,
    c: char,
    quote: char,
    flag: bool,
    small: i8,
    neg: i64,
    big: u64,
    huge: i128,
    uhuge: u128,
    half: f32,
    third: f64,
    nan: f64,
    inf: f32,
    none: Option<u8>,
    some: Option<&'a str>,
    unit: (),
    unit_struct: Unit,
    newtype: Newtype,
    pair: Pair,
    tuple: (u8, bool, &'a str),
    list: Vec<Shape>,
    tagged: Vec<Tagged>,
    #[serde(with = "serde_bytes_as_seq")]
    bytes: &'a [u8],
    map: BTreeMap<String, Value>,
    int_keys: BTreeMap<i32, &'a str>,
    bool_keys: BTreeMap<bool, u8>,
    char_keys: BTreeMap<char, u8>,
    nested: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    #[serde(flatten)]
    flat: BTreeMap<&'a str, u8>,
}

/// `serialize_bytes`, as `serde_bytes` would call it.
mod serde_bytes_as_seq {
    pub(super) fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
}

#[test]
fn writes_what_serde_json_writes() {
    let long = "x".repeat(300) + "\"\n\u{1}é" + &"y".repeat(200);
    let value = Everything {
        text: "hello",
        escapes: (0u8..0x20)
            .map(char::from)
            .chain("\"\\/\u{7f}".chars())
            .collect(),
        unicode: "é漢字🦀\u{2028}",
        c: 'é',
        quote: '"',
        flag: true,
        small: -8,
        neg: i64::MIN,
        big: u64::MAX,
        huge: i128::MIN,
        uhuge: u128::MAX,
        half: 0.1,
        third: 1.0 / 3.0,
        nan: f64::NAN,
        inf: f32::INFINITY,
        none: None,
        some: Some(&long),
        unit: (),
        unit_struct: Unit,
        newtype: Newtype("n".into()),
        pair: Pair(-1, "p"),
        tuple: (7, false, "t"),
        list: vec![
            Shape::Dot,
            Shape::Circle(2.5),
            Shape::Segment(1, -2),
            Shape::Rect { w: 3, h: 4 },
        ],
        tagged: vec![Tagged::Text { text: "a".into() }, Tagged::Empty],
        bytes: &[0, 1, 255],
        map: BTreeMap::from([
            ("a".into(), json!(null)),
            ("k\"ey".into(), json!([1, 2.5, "s", {"x": []}])),
        ]),
        int_keys: BTreeMap::from([(-3, "m"), (10, "t")]),
        bool_keys: BTreeMap::from([(false, 0), (true, 1)]),
        char_keys: BTreeMap::from([('"', 1), ('z', 2)]),
        nested: json!({"deep": {"deeper": [[[]], {}], "n": -0.0, "e": 1e300}}),
        skipped: None,
        flat: BTreeMap::from([("flat", 1)]),
    };
    same(&value);
    // Each piece at the top too: the type reported is the top value's.
    same(&());
    same(&Unit);
    same(&None::<u8>);
    same(&Some(3));
    same(&true);
    same(&-1i32);
    same(&u128::MAX);
    same(&f64::NAN);
    same(&0.1f32);
    same(&'x');
    same(&"text");
    same(&long);
    same(&vec![1, 2]);
    same(&(1, "a"));
    same(&Pair(1, "a"));
    same(&Newtype("n".into()));
    same(&Shape::Dot);
    same(&Shape::Circle(1.0));
    same(&Shape::Segment(1, 2));
    same(&Shape::Rect { w: 1, h: 2 });
    same(&Tagged::Empty);
    same(&BTreeMap::<String, u8>::new());
    same(&HashMap::from([(1u64, "one")]));
    same(&HashMap::from([(ordered(1.5), "x")]));
    same(&HashMap::from([(ordered(-0.0), "z")]));
    same(&HashMap::from([(ordered(1e300), "big")]));
    same(&json!({"a": 1, "b": [true, null]}));
    same(&json!([]));
    same(&json!("s"));
    same(&json!(12));
    same(&json!(null));
}

/// A `RawValue` is written as it is (its text is JSON already), and
/// its type is the type of that text: this fails if serde_json names
/// its raw values another way (the token is one of its internals).
#[test]
fn raw_values_are_written_as_they_are() {
    for (text, kind) in [
        (r#"{"a": [1, 2]}"#, "object"),
        ("[1]", "array"),
        (r#""s""#, "string"),
        ("true", "boolean"),
        ("null", "null"),
        ("-1.5e3", "number"),
    ] {
        let raw = serde_json::value::RawValue::from_string(text.to_owned()).expect("JSON");
        assert_eq!(ours(&raw), Ok((text.to_owned(), kind)));
        #[derive(Serialize)]
        struct Holder<'a> {
            raw: &'a serde_json::value::RawValue,
        }
        let held = ours(&Holder { raw: &raw }).expect("writes").0;
        assert_eq!(held, serde_json::to_string(&Holder { raw: &raw }).unwrap());
    }
}

/// What serde_json refuses, ours refuses: keys that are not strings,
/// non-finite float keys, a `Serialize` that fails.
#[test]
fn refuses_what_serde_json_refuses() {
    struct Fails;
    impl Serialize for Fails {
        fn serialize<S: serde::Serializer>(&self, _s: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no"))
        }
    }
    let refused = |e: Result<(String, &str), String>, serde: serde_json::Result<String>| {
        assert!(serde.is_err(), "serde_json refuses it too");
        assert!(e.is_err(), "{e:?}");
    };
    let vec_keys = BTreeMap::from([(vec![1], 1)]);
    refused(ours(&vec_keys), serde_json::to_string(&vec_keys));
    let unit_keys = BTreeMap::from([((), 1)]);
    refused(ours(&unit_keys), serde_json::to_string(&unit_keys));
    let nan_keys = HashMap::from([(ordered(f64::NAN), 1)]);
    refused(ours(&nan_keys), serde_json::to_string(&nan_keys));
    refused(ours(&Fails), serde_json::to_string(&Fails));
    refused(ours(&vec![Fails]), serde_json::to_string(&vec![Fails]));
    assert_eq!(ours(&Fails), Err("no".to_owned()));
}

/// A float that can be a map key (`f64` is neither `Eq` nor `Hash`).
#[derive(Debug, PartialEq, Eq, Hash)]
struct Key(u64);

impl Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(f64::from_bits(self.0))
    }
}

fn ordered(f: f64) -> Key {
    Key(f.to_bits())
}
