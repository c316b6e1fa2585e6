//! `image_path`: files read from the operator's image directory, and nowhere else.
//!
//! The directory is opened once, at start, as a capability ([`cap_std::fs::Dir`]); every
//! file is opened relative to that handle, and no component of the path, `..` or a
//! symbolic link, may lead outside it (`openat2` with `RESOLVE_BENEATH` where the kernel
//! has it, an equivalent component-by-component walk elsewhere). Checking a path first and
//! opening it afterwards would let a file be swapped for a link in between; here the
//! open itself is the check. The open file is then checked on its descriptor (a regular
//! file, under the size limit) and read on a blocking thread, the limit enforced while
//! reading, since a file may grow after its size was looked at.

use std::{io::Read, path::PathBuf, sync::Arc};

use cap_std::{ambient_authority, fs::Dir};

/// The URI prefix of the image directory's files.
pub const IMAGE_PREFIX: &str = "mrtd://images/";

/// Characters escaped in an image's path within its URI: all but unreserved ones and `/`.
const PATH_ESCAPES: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// The URI of an image directory file.
pub fn image_uri(path: &str) -> String {
    format!("{IMAGE_PREFIX}{}", percent_encoding::utf8_percent_encode(path, PATH_ESCAPES))
}

/// The image directory path a `mrtd://images/...` URI names, decoded; `None` for any other
/// text or a path that does not decode to UTF-8.
pub fn image_path_of(uri: &str) -> Option<String> {
    let encoded = uri.strip_prefix(IMAGE_PREFIX)?;
    percent_encoding::percent_decode_str(encoded).decode_utf8().ok().map(|p| p.into_owned())
}

/// Why a file could not be read. The text is safe to show to a caller: it never says
/// whether a name outside the directory exists.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImageFileError {
    /// No image directory is configured.
    #[error(
        "image_path is disabled: this server has no image directory configured; send the \
         image as image_base64"
    )]
    Disabled,
    /// The path names nothing readable inside the directory.
    #[error("image_path must name an existing file inside the server's image directory")]
    NotFound,
    /// The file is larger than an image may be.
    #[error("the file is larger than the {limit_mib} MiB an image may have")]
    TooLarge {
        /// The limit in MiB.
        limit_mib: usize,
    },
}

/// The image directory, opened once.
#[derive(Debug, Clone)]
pub struct ImageDir {
    dir: Arc<Dir>,
    max_bytes: usize,
}

impl ImageDir {
    /// Opens `path` as the image directory; files larger than `max_bytes` are refused.
    pub fn open(path: &std::path::Path, max_bytes: usize) -> std::io::Result<Self> {
        let dir = Dir::open_ambient_dir(path, ambient_authority())?;
        Ok(ImageDir { dir: Arc::new(dir), max_bytes })
    }

    /// Reads the file `relative` names, on a blocking thread.
    pub async fn read(&self, relative: &str) -> Result<Vec<u8>, ImageFileError> {
        let this = self.clone();
        let relative = PathBuf::from(relative);
        tokio::task::spawn_blocking(move || this.read_blocking(&relative))
            .await
            .map_err(|_| ImageFileError::NotFound)?
    }

    /// Reads the file `relative` names as base64, reading and encoding on a blocking thread
    /// (encoding a large photo would hold an async worker for tens of milliseconds); the
    /// file's bytes are let go as soon as they are encoded.
    pub async fn read_base64(&self, relative: &str) -> Result<String, ImageFileError> {
        let this = self.clone();
        let relative = PathBuf::from(relative);
        tokio::task::spawn_blocking(move || {
            use base64::Engine as _;
            let bytes = this.read_blocking(&relative)?;
            Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
        })
        .await
        .map_err(|_| ImageFileError::NotFound)?
    }

    /// The image files in the directory and its subfolders (at most [`MAX_LISTED`], at most
    /// [`MAX_DEPTH`] folders deep), as paths relative to it with `/` between components, in
    /// name order, with their sizes. Symbolic links, hidden entries, names that are not
    /// UTF-8 and files that are not images by their extension are left out. On a blocking
    /// thread.
    pub async fn list(&self) -> Vec<ListedImage> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            let mut listed = Vec::new();
            list_into(&this.dir, "", 0, &mut listed);
            listed.sort_by(|a, b| a.path.cmp(&b.path));
            listed
        })
        .await
        .unwrap_or_default()
    }

    fn read_blocking(&self, relative: &std::path::Path) -> Result<Vec<u8>, ImageFileError> {
        if relative.is_absolute() {
            return Err(ImageFileError::NotFound);
        }
        let mut options = cap_std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            // Opening a FIFO or a device for reading could block forever; with O_NONBLOCK it
            // returns at once, and the type check below refuses it.
            use cap_std::fs::OpenOptionsExt;
            options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
        }
        let file = self.dir.open_with(relative, &options).map_err(|_| ImageFileError::NotFound)?;
        let metadata = file.metadata().map_err(|_| ImageFileError::NotFound)?;
        if !metadata.is_file() {
            return Err(ImageFileError::NotFound);
        }
        let too_large = ImageFileError::TooLarge { limit_mib: self.max_bytes / (1024 * 1024) };
        if metadata.len() > self.max_bytes as u64 {
            return Err(too_large);
        }
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        file.take(self.max_bytes as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|_| ImageFileError::NotFound)?;
        if bytes.len() > self.max_bytes {
            return Err(too_large);
        }
        Ok(bytes)
    }
}

/// An image file in the image directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedImage {
    /// Relative to the directory, `/` between components.
    pub path: String,
    /// In bytes.
    pub size: u64,
}

/// The most files [`ImageDir::list`] returns.
pub const MAX_LISTED: usize = 500;
/// How many folders deep [`ImageDir::list`] looks.
pub const MAX_DEPTH: usize = 3;
/// File name extensions of the files read as photos (listed as resources, picked up in
/// folder scans).
pub const IMAGE_EXTENSIONS: [&str; 11] =
    ["jpg", "jpeg", "png", "webp", "tif", "tiff", "bmp", "jfif", "heic", "heif", "pdf"];

/// The media type of an image file by its extension.
pub fn media_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match extension.as_str() {
        "jpg" | "jpeg" | "jfif" => "image/jpeg",
        "png" => "image/png",
        "webp" => "image/webp",
        "tif" | "tiff" => "image/tiff",
        "bmp" => "image/bmp",
        "heic" => "image/heic",
        "heif" => "image/heif",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

fn list_into(dir: &Dir, prefix: &str, depth: usize, listed: &mut Vec<ListedImage>) {
    let Ok(entries) = dir.entries() else { return };
    for entry in entries.flatten() {
        if listed.len() >= MAX_LISTED {
            return;
        }
        let Ok(name) = entry.file_name().into_string() else { continue };
        if name.starts_with('.') {
            continue;
        }
        // The entry's own type: a symbolic link is neither a file nor a folder here.
        let Ok(kind) = entry.file_type() else { continue };
        let path = format!("{prefix}{name}");
        if kind.is_dir() && depth < MAX_DEPTH {
            if let Ok(sub) = entry.open_dir() {
                list_into(&sub, &format!("{path}/"), depth + 1, listed);
            }
        } else if kind.is_file()
            && name
                .rsplit_once('.')
                .is_some_and(|(_, e)| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            listed.push(ListedImage { path, size });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, ImageDir) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("photo.jpg"), b"bytes").unwrap();
        let images = ImageDir::open(dir.path(), 16).unwrap();
        (dir, images)
    }

    #[tokio::test]
    async fn files_inside_are_read_and_nothing_else() {
        let (dir, images) = setup();
        assert_eq!(images.read("photo.jpg").await.unwrap(), b"bytes");
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), b"secret").unwrap();
        let name = outside.path().file_name().unwrap().to_string_lossy().into_owned();
        let escape = format!("../{name}");
        assert_eq!(images.read(&escape).await.unwrap_err(), ImageFileError::NotFound);
        assert_eq!(
            images.read(outside.path().to_str().unwrap()).await.unwrap_err(),
            ImageFileError::NotFound
        );
        assert_eq!(images.read("missing.jpg").await.unwrap_err(), ImageFileError::NotFound);
        assert_eq!(images.read(".").await.unwrap_err(), ImageFileError::NotFound);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), dir.path().join("link.jpg")).unwrap();
            assert_eq!(images.read("link.jpg").await.unwrap_err(), ImageFileError::NotFound);
            std::fs::create_dir(dir.path().join("sub")).unwrap();
            std::os::unix::fs::symlink("..", dir.path().join("sub/up")).unwrap();
            assert_eq!(
                images.read(&format!("sub/up/../{name}")).await.unwrap_err(),
                ImageFileError::NotFound
            );
            // A link that stays inside is followed.
            std::os::unix::fs::symlink("photo.jpg", dir.path().join("inside.jpg")).unwrap();
            assert_eq!(images.read("inside.jpg").await.unwrap(), b"bytes");
        }
    }

    #[tokio::test]
    async fn large_files_and_fifos_are_refused() {
        let (dir, images) = setup();
        std::fs::write(dir.path().join("big.jpg"), [0u8; 17]).unwrap();
        assert!(matches!(
            images.read("big.jpg").await.unwrap_err(),
            ImageFileError::TooLarge { .. }
        ));
        #[cfg(unix)]
        {
            let fifo = dir.path().join("pipe.jpg");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
            assert!(made.success(), "mkfifo makes a FIFO");
            let refused =
                tokio::time::timeout(std::time::Duration::from_secs(5), images.read("pipe.jpg"))
                    .await
                    .expect("a FIFO does not block the read");
            assert_eq!(refused.unwrap_err(), ImageFileError::NotFound);
        }
    }

    #[tokio::test]
    async fn the_listing_holds_the_images_inside_and_nothing_else() {
        let (dir, images) = setup();
        std::fs::create_dir(dir.path().join("passports")).unwrap();
        std::fs::write(dir.path().join("passports/anna.PNG"), b"png").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"text").unwrap();
        std::fs::write(dir.path().join(".hidden.jpg"), b"jpg").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.jpg"), b"secret").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let listed = images.list().await;
        let paths: Vec<&str> = listed.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(paths, ["passports/anna.PNG", "photo.jpg"]);
        assert_eq!(listed[1].size, 5);
        assert_eq!(media_type("passports/anna.PNG"), "image/png");
    }
}
