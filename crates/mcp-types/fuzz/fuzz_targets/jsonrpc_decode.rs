//! Fuzz target for message classification (`JsonRpcMessage::decode_with`,
//! `decode_frame`) against a model of JSON-RPC 2.0 over serde_json's
//! reading; the check and its input layout are in
//! `tests/fuzz_checks/jsonrpc_decode.rs`, which `tests/fuzz_corpus.rs`
//! also runs over the kept corpus. Run with `cargo xtask fuzz jsonrpc_decode`.
#![no_main]

#[path = "../../tests/fuzz_checks/jsonrpc_decode.rs"]
mod jsonrpc_decode;
#[allow(dead_code)]
#[path = "../../tests/fuzz_checks/members.rs"]
mod members;

libfuzzer_sys::fuzz_target!(|data: &[u8]| jsonrpc_decode::check(data));
