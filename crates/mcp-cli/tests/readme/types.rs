use mcp_types::{JsonRpcMessage, ProtocolVersion};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let message = JsonRpcMessage::decode(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#)?;
    assert!(matches!(message, JsonRpcMessage::Response(_)));
    assert!(ProtocolVersion::V2025_03_26.allows_batch());
    assert_eq!(
        ProtocolVersion::parse("2025-11-25"),
        Some(ProtocolVersion::LATEST_HANDSHAKE)
    );
    Ok(())
}
