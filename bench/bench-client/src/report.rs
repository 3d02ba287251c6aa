//! The orchestrator: runs every client and writes the markdown report.
use crate::Args;
pub fn main(_args: &Args) -> anyhow::Result<()> { anyhow::bail!("todo") }
