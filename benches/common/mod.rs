//! A small side-by-side harness shared by the benches (`harness = false`).
//!
//! Why not criterion or divan: both measure one benchmark after another, so on a machine shared
//! with other builds the load can change between "ours" and "theirs" and the ratio drifts. Here
//! every round runs one batch of *each* competitor, back to back, in rotating order; the ratio
//! is taken within each round and the report gives its median and spread over all rounds.
//!
//! Also here: a counting global allocator (allocations per call, after a warm-up call), and two
//! switches for profiling with callgrind, where instruction counts are repeatable:
//! `BENCH_ONLY=<case>` runs one case `BENCH_ITERS` times (default 10 000) and exits.
#![allow(dead_code, clippy::cast_precision_loss)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Counts every allocation (and reallocation) made through the global allocator.
pub struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// One competitor: a name and one call of the operation measured.
pub struct Case<'a> {
    pub name: &'static str,
    pub run: Box<dyn FnMut() + 'a>,
}

pub fn case<'a>(name: &'static str, run: impl FnMut() + 'a) -> Case<'a> {
    Case {
        name,
        run: Box::new(run),
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The group filter: the first command-line argument that is not a flag (`cargo bench --bench
/// reply_parsing -- reject` runs only groups whose name contains "reject").
fn selected(group: &str) -> bool {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    filter.is_none_or(|f| group.contains(&f))
}

/// Measure `cases` side by side; the first case is "ours", and every ratio is `case / first`.
pub fn compare(group: &str, mut cases: Vec<Case<'_>>) {
    if let Ok(only) = std::env::var("BENCH_ONLY") {
        let iters = env_usize("BENCH_ITERS", 10_000);
        for c in cases.iter_mut().filter(|c| c.name == only) {
            for _ in 0..iters {
                (c.run)();
            }
        }
        return;
    }
    if !selected(group) {
        return;
    }
    let rounds = env_usize("BENCH_ROUNDS", 31);
    let batch_time = Duration::from_micros(env_usize("BENCH_BATCH_US", 200) as u64);

    // Warm up, count allocations per call, and size each batch to about `batch_time`.
    let mut iters = Vec::new();
    let mut allocs = Vec::new();
    for c in &mut cases {
        (c.run)();
        let before = ALLOCATIONS.load(Relaxed);
        for _ in 0..100 {
            (c.run)();
        }
        allocs.push((ALLOCATIONS.load(Relaxed) - before) as f64 / 100.0);
        let mut n = 1usize;
        loop {
            let start = Instant::now();
            for _ in 0..n {
                (c.run)();
            }
            let took = start.elapsed();
            if took >= batch_time / 4 || n >= 1 << 24 {
                let per = took.as_secs_f64() / n as f64;
                iters.push(((batch_time.as_secs_f64() / per) as usize).max(1));
                break;
            }
            n *= 2;
        }
    }

    // Rounds: in each, every case runs `REPS` short batches, interleaved in rotating order, and
    // keeps its fastest: a batch that another process preempted is dropped, not averaged in.
    const REPS: usize = 5;
    let k = cases.len();
    let mut per_call = vec![Vec::with_capacity(rounds); k];
    for r in 0..rounds {
        let mut best = vec![f64::INFINITY; k];
        for rep in 0..REPS {
            for j in 0..k {
                let i = (r + rep + j) % k;
                let c = &mut cases[i];
                let start = Instant::now();
                for _ in 0..iters[i] {
                    (c.run)();
                }
                let t = start.elapsed().as_secs_f64() * 1e9 / iters[i] as f64;
                best[i] = best[i].min(t);
            }
        }
        for i in 0..k {
            per_call[i].push(best[i]);
        }
    }

    println!(
        "\n## {group}  ({rounds} rounds; time per call: median [p10, p90] of each round's best of 5 short batches; ratio per round vs `{}`: median [p10, p90])",
        cases[0].name
    );
    println!(
        "| case | time per call | ratio to `{}` | allocations per call |",
        cases[0].name
    );
    println!("|---|---|---|---|");
    for i in 0..k {
        let (m, lo, hi) = summary(&per_call[i]);
        let ratios: Vec<f64> = (0..rounds)
            .map(|r| per_call[i][r] / per_call[0][r])
            .collect();
        let (rm, rlo, rhi) = summary(&ratios);
        println!(
            "| {} | {} [{}, {}] | {:.2}× [{:.2}, {:.2}] | {} |",
            cases[i].name,
            fmt_ns(m),
            fmt_ns(lo),
            fmt_ns(hi),
            rm,
            rlo,
            rhi,
            allocs[i]
        );
    }
}

fn summary(values: &[f64]) -> (f64, f64, f64) {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.1), at(0.9))
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

/// Keep a value alive and opaque to the optimiser.
pub fn keep<T>(value: T) {
    black_box(value);
}
pub mod forms;
