//! The benchmarks' second server: the same tools as `bench-server`, served
//! by rmcp (the official Rust SDK), so every client-side figure can be
//! taken against two servers that answer at different speeds and in
//! different chunks.
//!
//! ```text
//! rmcp-bench-server stdio [--tools N]
//! rmcp-bench-server http --port P [--sse] [--sessions] [--tools N]   # 127.0.0.1 only; /mcp
//! ```
//!
//! - `tools/call` `echo` returns `arguments.text` as one text content item
//!   (an `echo` without a string `text` is a tool error).
//! - `tools/list` returns N tools (default 1000): `echo` and
//!   `tool_0001`… with the same names, descriptions and schemas as
//!   `bench-server`'s.
//! - HTTP: stateless Streamable HTTP answering each POST with JSON by
//!   default, with a `text/event-stream` under `--sse`; `--sessions` is
//!   rmcp's default configuration instead (sessions, SSE replies).
//!
//! Everything else (initialize, ping, errors) is rmcp's own handling.

use std::convert::Infallible;
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer, ServiceExt};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// The server's tools, built once.
#[derive(Clone)]
struct Echo {
    tools: Arc<Vec<Tool>>,
}

fn schema(v: serde_json::Value) -> Arc<JsonObject> {
    match v {
        serde_json::Value::Object(o) => Arc::new(o),
        _ => Arc::new(JsonObject::new()),
    }
}

impl Echo {
    fn new(count: usize) -> Self {
        let mut tools = Vec::with_capacity(count);
        tools.push(Tool::new(
            "echo",
            "Returns its text.",
            schema(serde_json::json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            })),
        ));
        let listed = schema(serde_json::json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100}
            },
            "required": ["query"]
        }));
        for i in 1..count {
            tools.push(Tool::new(
                format!("tool_{i:04}"),
                format!("Benchmark tool number {i}; it takes a query and a limit."),
                listed.clone(),
            ));
        }
        Echo {
            tools: Arc::new(tools),
        }
    }
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "echo" {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {}", request.name),
                None,
            ));
        }
        let text = request
            .arguments
            .and_then(|mut a| a.remove("text"))
            .and_then(|t| match t {
                serde_json::Value::String(s) => Some(s),
                _ => None,
            });
        Ok(match text {
            Some(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            None => CallToolResult::error(vec![ContentBlock::text("echo needs a string `text`")]),
        }
        .into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }
}

async fn serve_http(echo: Echo, port: u16, sse: bool, sessions: bool) -> std::io::Result<()> {
    let config = if sessions {
        StreamableHttpServerConfig::default()
    } else {
        let mut c = StreamableHttpServerConfig::default();
        c.legacy_session_mode = false;
        c.json_response = !sse;
        c
    };
    let service = StreamableHttpService::new(
        move || Ok(echo.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let service = service.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let tools = value("--tools")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000usize)
        .max(1);
    let echo = Echo::new(tools);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome: Result<(), Box<dyn std::error::Error>> = rt.block_on(async {
        match args.first().map(String::as_str) {
            Some("stdio") => {
                let running = echo.serve(rmcp::transport::stdio()).await?;
                running.waiting().await?;
                Ok(())
            }
            Some("http") => {
                let port = value("--port")
                    .and_then(|v| v.parse().ok())
                    .ok_or("http needs --port P")?;
                serve_http(echo, port, flag("--sse"), flag("--sessions")).await?;
                Ok(())
            }
            _ => Err(
                "usage: rmcp-bench-server stdio|http --port P [--sse] [--sessions] [--tools N]"
                    .into(),
            ),
        }
    });
    if let Err(e) = outcome {
        eprintln!("rmcp-bench-server: {e}");
        std::process::exit(1);
    }
}
