//! Params in, results out: the two conversions every method of the demo
//! server makes (a leaf, so the tools and the catalog need nothing else of
//! the server).

use mcp_types::{ErrorCode, JsonRpcError};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// A method's result, or the JSON-RPC error it answers with.
pub(super) type Outcome = Result<Value, JsonRpcError>;

/// Decodes `params` (absent = `{}`) into `T`, or `-32602`.
pub(super) fn parse_params<T: DeserializeOwned>(params: Option<&Value>) -> Result<T, JsonRpcError> {
    let value = params.cloned().unwrap_or_else(|| json!({}));
    serde_json::from_value(value)
        .map_err(|e| JsonRpcError::new(ErrorCode::INVALID_PARAMS, format!("invalid params: {e}")))
}

pub(super) fn to_value<T: serde::Serialize>(value: T) -> Outcome {
    serde_json::to_value(value)
        .map_err(|e| JsonRpcError::new(ErrorCode::INTERNAL_ERROR, e.to_string()))
}
