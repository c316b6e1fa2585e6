//! The documentation of the operations, written for people and models, kept in one place
//! (`docs/`): the MCP tools' descriptions, resources and prompt, and the web's reading
//! layer (`/docs/{name}.md`, `/llms.txt`) both publish these texts.

/// The tools' descriptions (`docs/tools/{tool}.md`).
pub mod tools {
    /// `scan_document`.
    pub const SCAN_DOCUMENT: &str = include_str!("../docs/tools/scan_document.md");
    /// `get_scan`.
    pub const GET_SCAN: &str = include_str!("../docs/tools/get_scan.md");
    /// `list_scans`.
    pub const LIST_SCANS: &str = include_str!("../docs/tools/list_scans.md");
    /// `delete_scan`.
    pub const DELETE_SCAN: &str = include_str!("../docs/tools/delete_scan.md");
    /// `parse_mrz`.
    pub const PARSE_MRZ: &str = include_str!("../docs/tools/parse_mrz.md");
    /// `check_document`.
    pub const CHECK_DOCUMENT: &str = include_str!("../docs/tools/check_document.md");
    /// `verify_chip`.
    pub const VERIFY_CHIP: &str = include_str!("../docs/tools/verify_chip.md");
}

/// Guides for people and agents (`docs/resources/*.md`).
pub mod guides {
    /// How to photograph a document so that its MRZ reads.
    pub const PHOTO_GUIDE: &str = include_str!("../docs/resources/photo-guide.md");
    /// The layouts read and what is checked.
    pub const SUPPORTED_DOCUMENTS: &str = include_str!("../docs/resources/supported-documents.md");
    /// Where chip data comes from, what is checked, and what `authentic` does not prove.
    pub const CHIP_VERIFICATION: &str = include_str!("../docs/resources/chip-verification.md");
}

/// The prompt that walks an agent through checking a traveller's document.
pub const VERIFY_TRAVELLER_PROMPT: &str = include_str!("../docs/prompts/verify-traveller.md");
