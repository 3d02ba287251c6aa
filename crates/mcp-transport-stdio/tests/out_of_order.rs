//! Responses arriving in another order than the requests are correlated by id.
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn responses_in_reverse_order_reach_their_requests() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    let (pa, pb) = (json!({"which": "a"}), json!({"which": "b"}));
    let a = t.request("hold", Some(&pa), within(10_000));
    let b = t.request("hold", Some(&pb), within(10_000));
    let release = async {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        t.request("release", None, within(10_000)).await
    };
    let (a, b, released) = tokio::join!(a, b, release);
    assert_eq!(a.unwrap(), json!({"held": {"which": "a"}}));
    assert_eq!(b.unwrap(), json!({"held": {"which": "b"}}));
    assert_eq!(released.unwrap(), json!({"released": 2}));
    t.close().await.unwrap();
}
