//! Virtual time: wall time since the run began, plus every delay the fault executor
//! synthesized instead of waiting.

use std::time::Instant;

/// A run's clock, in milliseconds since the run began.
///
/// Real work (model requests, tool calls) advances it by the wall time it took; an injected
/// fault advances it by the time the fault stands for (a timeout budget, a `slow` delay)
/// without anyone waiting.
#[derive(Debug, Clone)]
pub struct VirtualClock {
    origin: Instant,
    offset_ms: u64,
}

impl VirtualClock {
    /// A clock at 0 ms.
    pub fn start() -> Self {
        VirtualClock {
            origin: Instant::now(),
            offset_ms: 0,
        }
    }

    /// Milliseconds since the run began, virtual delays included.
    pub fn now_ms(&self) -> u64 {
        let wall = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        wall.saturating_add(self.offset_ms)
    }

    /// Moves the clock forward to `t_ms` (never backward).
    pub fn advance_to(&mut self, t_ms: u64) {
        let now = self.now_ms();
        if t_ms > now {
            self.offset_ms = self.offset_ms.saturating_add(t_ms - now);
        }
    }

    /// The virtual milliseconds added so far (the time no one waited for).
    pub fn virtual_ms(&self) -> u64 {
        self.offset_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advances_without_waiting() {
        let mut c = VirtualClock::start();
        let t0 = c.now_ms();
        c.advance_to(t0 + 3_000);
        assert!(c.now_ms() >= t0 + 3_000);
        assert!(c.virtual_ms() >= 2_900);
        let before = c.now_ms();
        c.advance_to(0);
        assert!(c.now_ms() >= before);
    }
}
