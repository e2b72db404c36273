//! What this binary is: version, git commit, profile, the CPU baseline it was compiled for and
//! the llama.cpp it links (recorded by `build.rs`). `aipc --version` prints it; `aipc doctor`
//! and the model benchmark report it, so a figure can be traced to the build that made it.

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The short git commit of the source tree, or "unknown" (built outside a git checkout).
pub const GIT_COMMIT: &str = env!("AIPC_BUILD_GIT");
/// The cargo profile: "debug" or "release".
pub const PROFILE: &str = env!("AIPC_BUILD_PROFILE");
/// rustc's `target-cpu` (also llama.cpp's `-march`): "x86-64-v3" by default (.cargo/config.toml),
/// "native" for a build that only runs on CPUs like the one that built it.
pub const TARGET_CPU: &str = env!("AIPC_BUILD_TARGET_CPU");
/// The llama-cpp-sys-2 version Cargo.lock pins: the llama.cpp tree linked in-process, and the
/// one `scripts/build-llama-server.sh` builds llama-server and llama-bench from.
pub const LLAMA_CPP_SYS: &str = env!("AIPC_BUILD_LLAMA_CPP_SYS");

/// The long `--version` text (after "aipc ").
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncommit: ",
    env!("AIPC_BUILD_GIT"),
    "\nprofile: ",
    env!("AIPC_BUILD_PROFILE"),
    "\ntarget: ",
    env!("AIPC_BUILD_TARGET_ARCH"),
    ", target-cpu ",
    env!("AIPC_BUILD_TARGET_CPU"),
    "\nllama.cpp: the tree of llama-cpp-sys-2 ",
    env!("AIPC_BUILD_LLAMA_CPP_SYS"),
    " (in-process, static)"
);

/// One line for reports: "aipc 0.1.0 (abc123, release, x86-64-v3)".
pub fn one_line() -> String {
    format!("aipc {VERSION} ({GIT_COMMIT}, {PROFILE}, target-cpu {TARGET_CPU})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_llama_crate_version_is_the_one_cargo_lock_pins() {
        let lock = include_str!("../Cargo.lock");
        let pinned = format!("name = \"llama-cpp-sys-2\"\nversion = \"{LLAMA_CPP_SYS}\"");
        assert!(
            lock.contains(&pinned),
            "{LLAMA_CPP_SYS} is not in Cargo.lock"
        );
    }

    #[test]
    fn the_long_version_names_commit_profile_and_cpu() {
        let text = LONG_VERSION;
        assert!(text.starts_with(VERSION));
        assert!(text.contains(&format!("commit: {GIT_COMMIT}")));
        assert!(text.contains(&format!("llama-cpp-sys-2 {LLAMA_CPP_SYS}")));
        assert!(text.contains(&format!("target-cpu {TARGET_CPU}")));
        assert!(["debug", "release"].contains(&PROFILE), "{PROFILE}");
    }
}
