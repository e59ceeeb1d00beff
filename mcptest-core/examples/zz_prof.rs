use mcptest_core::eval::{NarrativeConfig, check_narrative};
use mcptest_core::trace::ToolCall;
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
struct Count;
static N: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Count {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        N.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, s: usize) -> *mut u8 {
        N.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(s, Ordering::Relaxed);
        unsafe { System.realloc(p, l, s) }
    }
}

const VERBS: [&str; 8] = [
    "create", "update", "delete", "send", "get", "list", "search", "close",
];
const NOUNS: [&str; 16] = [
    "issue", "branch", "comment", "email", "user", "order", "invoice", "label", "ticket", "file",
    "report", "record", "page", "token", "message", "customer",
];

/// A small deterministic generator, so every run measures the same input.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn calls(n: usize) -> Vec<ToolCall> {
    let mut rng = Lcg(7);
    (0..n)
        .map(|i| {
            let name = format!("{}_{}{}", VERBS[rng.next(8)], NOUNS[rng.next(16)], i % 50);
            let priority = ["low", "high"][i % 2];
            ToolCall::new(name).with_server("svc").with_args(json!({
                "id": i,
                "title": format!("Item number {i}"),
                "priority": priority,
            }))
        })
        .collect()
}

/// About `words` words of narration: claims, mentions, key-value statements and filler.
fn narrative(words: usize) -> String {
    let mut rng = Lcg(11);
    let templates: [&dyn Fn(&mut Lcg) -> String; 5] = [
        &|r| {
            format!(
                "I created the {}{} with title: \"Item number {}\".",
                NOUNS[r.next(16)],
                r.next(50),
                r.next(1000)
            )
        },
        &|r| {
            format!(
                "Then I updated the {} and set priority to high.",
                NOUNS[r.next(16)]
            )
        },
        &|r| {
            format!(
                "I searched the {}s, listed every {} and read them carefully before moving on.",
                NOUNS[r.next(16)],
                NOUNS[r.next(16)]
            )
        },
        &|r| {
            format!(
                "After that, the team reviewed {} results and nothing else needed attention today.",
                r.next(90)
            )
        },
        &|r| {
            format!(
                "Finally I sent an email to the {} owner and closed ticket {}.",
                NOUNS[r.next(16)],
                r.next(500)
            )
        },
    ];
    let mut out = String::new();
    let mut count = 0;
    while count < words {
        let s = templates[rng.next(5)](&mut rng);
        count += s.split_whitespace().count();
        out.push_str(&s);
        out.push(' ');
    }
    out
}

fn main() {
    let cfg = NarrativeConfig::default();
    let large = (narrative(10_000), calls(1_000));
    let n0 = N.load(Ordering::Relaxed);
    let b0 = BYTES.load(Ordering::Relaxed);
    let r = check_narrative(&large.0, &large.1, &cfg);
    let n1 = N.load(Ordering::Relaxed);
    let b1 = BYTES.load(Ordering::Relaxed);
    println!(
        "allocs {} bytes {} items {} claims {}",
        n1 - n0,
        b1 - b0,
        r.items.len(),
        r.claimed_actions
    );
    let mut by = std::collections::BTreeMap::new();
    for i in &r.items {
        *by.entry(format!("{:?}", i.category)).or_insert(0) += 1;
    }
    println!("{:?}", by);
    let t = std::time::Instant::now();
    let n: u32 = std::env::var("ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    for _ in 0..n {
        std::hint::black_box(check_narrative(&large.0, &large.1, &cfg));
    }
    println!("{:?}/iter", t.elapsed() / n.max(1));
}
