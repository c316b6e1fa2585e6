//! glibc's allocator, tuned so that the server gives large buffers back to the system.
//!
//! glibc's malloc serves a buffer from 128 KiB up to 32 MiB from its arenas once a buffer
//! that large has been freed (the mmap threshold rises to the largest one freed), and an
//! arena gives memory back only from its top. A server that builds many large answers and
//! decodes photos on many threads then keeps the sum of what each thread once held: 24
//! reads at once of a 16 MiB photo, one at a time within a 64 MiB budget, left 550 MB
//! resident. With the threshold fixed at 1 MiB every large buffer is its own mapping,
//! unmapped when freed (the same reads peak at 80 MB). glibc reads its tunables only at
//! start, so `mrtd serve` executes itself again once with `GLIBC_TUNABLES` set (the same
//! process, arguments and environment); an operator's own `glibc.malloc.mmap_threshold`
//! is left alone.

/// The tunable that fixes the threshold.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: &str = "glibc.malloc.mmap_threshold=1048576";

/// Executes this program again with the threshold fixed, unless it is already; returns
/// (and the server runs as it is) when that cannot be done.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn give_large_buffers_back() {
    use std::os::unix::process::CommandExt as _;
    let current = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
    if current.contains("glibc.malloc.mmap_threshold") {
        return;
    }
    let tunables = if current.is_empty() {
        MMAP_THRESHOLD.to_owned()
    } else {
        format!("{current}:{MMAP_THRESHOLD}")
    };
    let Ok(program) = std::env::current_exe() else { return };
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| program.clone().into_os_string());
    // `exec` returns only when it failed; the server then runs with glibc's defaults.
    let error = std::process::Command::new(&program)
        .arg0(arg0)
        .args(args)
        .env("GLIBC_TUNABLES", tunables)
        .exec();
    eprintln!("mrtd: could not restart with glibc's malloc tuned ({error}); continuing without");
}

/// Other C libraries need no tuning.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn give_large_buffers_back() {}
