//! `mcp`: the command line of the MCP client stack.

mod demo;

#[tokio::main]
async fn main() {
    if let Err(e) = demo::run_stdio().await {
        eprintln!("{e}");
    }
}
