//! mrtd-mcp.
