//! Measures the Verilator co-simulation speed on the self-test models: clock cycles per
//! second with the loop in C++, and driven from Rust one cycle at a time. Run with
//! `cargo run -p homa-sim --release --example rtl_speed [million_cycles]`.

#[cfg(not(homa_rtl))]
fn main() {
    println!("{}", homa_sim::rtl::SKIP_MESSAGE);
}

#[cfg(homa_rtl)]
fn main() {
    use std::time::Instant;

    use homa_sim::rtl::test_models::{RtlTestAxisFifo, RtlTestCounter};

    let millions: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let cycles = millions * 1_000_000;
    let report = |what: &str, start: Instant, check: u64| {
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "{what:<52} {:>6.2} M cycles/s  ({cycles} cycles in {seconds:.2} s, check {check:#x})",
            cycles as f64 / seconds / 1e6
        );
    };

    let mut counter = RtlTestCounter::new();
    counter.reset(1);
    counter.set_enable(1);
    let start = Instant::now();
    counter.ticks(cycles);
    report(
        "counter, ticks(n) (loop in C++)",
        start,
        counter.get_count(),
    );

    let mut counter = RtlTestCounter::new();
    counter.reset(1);
    let start = Instant::now();
    let mut sum = 0u64;
    for cycle in 0..cycles {
        counter.set_enable(cycle & 1);
        counter.tick();
        sum = sum.wrapping_add(counter.get_count());
    }
    report("counter, Rust loop: 1 set, tick, 1 get", start, sum);

    let mut fifo = RtlTestAxisFifo::new();
    fifo.reset(1);
    let mut data = [0u32; 16];
    let start = Instant::now();
    let mut sum = 0u64;
    for cycle in 0..cycles {
        data[(cycle % 16) as usize] = cycle as u32;
        fifo.set_s_axis_tdata(&data);
        fifo.set_s_axis_tvalid(1);
        fifo.set_s_axis_tlast(cycle & 1);
        fifo.set_m_axis_tready(u64::from(cycle % 3 != 0));
        let ready = fifo.get_s_axis_tready();
        fifo.tick();
        let out = fifo.get_m_axis_tdata();
        sum = sum.wrapping_add(ready + u64::from(out[0]) + fifo.get_m_axis_tvalid());
    }
    report(
        "512-bit AXIS FIFO, Rust loop: 4 sets, tick, 3 gets",
        start,
        sum,
    );
}
