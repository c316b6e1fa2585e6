//! mrtd's HTTP surface for people and ordinary programs: the web page, the REST API
//! under `/v1`, its OpenAPI document, and the reading layer for agents (`/llms.txt`,
//! Markdown docs, JSON-LD).
