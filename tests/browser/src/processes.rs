//! Processes the harness starts, and how it makes sure none outlives the test.

use std::{
    fs,
    path::Path,
    process::Child,
    thread,
    time::{Duration, Instant},
};

use nix::{sys::signal, unistd::Pid};

/// A child process that is stopped when the guard is dropped: `SIGTERM`, a grace period, then
/// `SIGKILL`; always reaped.
pub(crate) struct ChildGuard {
    child: Child,
    grace: Duration,
}

impl ChildGuard {
    /// `grace` is how long the child has to exit after `SIGTERM`; zero sends `SIGKILL` at once.
    pub(crate) fn new(child: Child, grace: Duration) -> Self {
        Self { child, grace }
    }

    /// The exit status, if the child has already exited.
    pub(crate) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if self.exited().is_some() {
            return;
        }
        if !self.grace.is_zero() {
            if let Ok(pid) = i32::try_from(self.child.id()) {
                let _ = signal::kill(Pid::from_raw(pid), signal::Signal::SIGTERM);
            }
            let deadline = Instant::now() + self.grace;
            while Instant::now() < deadline {
                if self.exited().is_some() {
                    return;
                }
                thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Kills (`SIGKILL`) every process one of whose arguments contains `needle`, and waits until
/// they are gone (at most a few seconds).
///
/// The browsers are found this way: chromedriver starts each with `--user-data-dir=<its
/// profile>`, a fresh temporary directory no other process names. This is what stops a browser
/// whose session was never closed (a test that panicked, a runtime already shut down), and what
/// stops them all if chromedriver itself dies first.
pub(crate) fn kill_processes_naming(needle: &Path) {
    let needle = needle.as_os_str().as_encoded_bytes();
    if needle.is_empty() {
        return;
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let found = processes_naming(needle);
        if found.is_empty() || Instant::now() > deadline {
            return;
        }
        for pid in found {
            let _ = signal::kill(pid, signal::Signal::SIGKILL);
        }
        thread::sleep(Duration::from_millis(50));
    }
}

fn processes_naming(needle: &[u8]) -> Vec<Pid> {
    let me = std::process::id();
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            if pid == me {
                return None;
            }
            let cmdline = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let names_it = cmdline
                .split(|&b| b == 0)
                .any(|arg| arg.windows(needle.len()).any(|w| w == needle));
            // A zombie has an empty cmdline, so it is never matched; its parent reaps it.
            if !names_it {
                return None;
            }
            Some(Pid::from_raw(i32::try_from(pid).ok()?))
        })
        .collect()
}
