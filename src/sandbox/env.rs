//! The environment a sandboxed command gets: an allow-list of names and prefixes that the
//! toolchains need (paths, locale, Python, thread counts, the session's `AIPC_*` variables),
//! and never anything that looks like a credential, whatever its name's prefix.

/// Variables passed by exact name.
const NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "VIRTUAL_ENV",
    "LD_LIBRARY_PATH",
    "QNN_SDK_ROOT",
    "QAIRT_SDK_ROOT",
    "CUDA_VISIBLE_DEVICES",
    "SOURCE_DATE_EPOCH",
    "NO_COLOR",
];

/// Variables passed by prefix.
const PREFIXES: &[&str] = &[
    "LC_",
    "PYTHON",
    "AIPC_",
    "OMP_",
    "MKL_",
    "OPENBLAS_",
    "KMP_",
    "TORCH",
    "XNNPACK_",
    "ORT_",
    "EXECUTORCH_",
];

/// Parts of a name (upper-cased) that mark a credential: such a variable is dropped even when
/// its prefix is allowed (`AIPC_API_KEY`).
const SECRET_MARKS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
    "SESSION_ID",
    "PRIVATE",
];

/// Prefixes of cloud and CI credentials (dropped whatever follows).
const SECRET_PREFIXES: &[&str] = &[
    "AWS_",
    "AZURE_",
    "GOOGLE_",
    "GCLOUD_",
    "GCP_",
    "HF_",
    "HUGGING",
    "OPENAI_",
    "ANTHROPIC_",
    "GITHUB_",
    "GH_",
    "GITLAB_",
    "CI_JOB_",
    "DOCKER_",
    "SSH_",
    "GPG_",
];

/// True when `name` may reach a sandboxed command.
pub fn is_allowed(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if SECRET_MARKS.iter().any(|mark| upper.contains(mark))
        || SECRET_PREFIXES.iter().any(|p| upper.starts_with(p))
    {
        return false;
    }
    NAMES.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// `vars` without what [`is_allowed`] refuses.
pub fn allowed(vars: Vec<(String, String)>) -> Vec<(String, String)> {
    vars.into_iter().filter(|(k, _)| is_allowed(k)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolchain_variables_pass() {
        for name in [
            "PATH",
            "HOME",
            "PYTHONPATH",
            "PYTHONUNBUFFERED",
            "AIPC_TARGET_DIR",
            "AIPC_SESSION_DIR",
            "VIRTUAL_ENV",
            "LC_ALL",
            "OMP_NUM_THREADS",
            "QNN_SDK_ROOT",
        ] {
            assert!(is_allowed(name), "{name}");
        }
    }

    #[test]
    fn credentials_never_pass_whatever_their_prefix() {
        for name in [
            "AIPC_API_KEY",
            "AIPC_TOKEN",
            "OPENAI_API_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_PROFILE",
            "GITHUB_TOKEN",
            "HF_TOKEN",
            "PYTHON_SECRET",
            "SSH_AUTH_SOCK",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "MY_PASSWORD",
            "aipc_private_thing",
        ] {
            assert!(!is_allowed(name), "{name}");
        }
    }

    #[test]
    fn unknown_variables_do_not_pass() {
        assert!(!is_allowed("EDITOR"));
        assert!(!is_allowed("DISPLAY"));
        let kept = allowed(vec![
            ("PATH".into(), "/bin".into()),
            ("X".into(), "1".into()),
        ]);
        assert_eq!(kept, vec![("PATH".to_string(), "/bin".to_string())]);
    }
}
