//! [`RxDma512`] and [`RxDma64`] against [`crate::rx_dma_model`] with the direct `simulate()`
//! loop, and its
//! completion records against the `proto::hostif` layout (`HOMA_HW_SEED` replays a run).
#![allow(non_snake_case)]

use super::*;
use crate::bench::seed_from_env;
use crate::rx_dma_model::{self, Answer, Counters, DmaPorts, DmaWrite, Offer};
use homa_proto::hostif::{COMPLETION_LEN, LAYOUTS};

struct Bench<const W: usize, const B: usize> {
    uut: RxDma<W, B>,
}

fn bytes512(v: Bits<512>) -> [u8; 64] {
    le_bytes_of(v).try_into().expect("64 bytes")
}

/// A beat's bytes in the first lanes of 64.
fn lanes_of<const B: usize>(v: Bits<B>) -> [u8; 64] {
    let mut d = [0u8; 64];
    d[..B / 8].copy_from_slice(&le_bytes_of(v));
    d
}

fn bits128(v: u128) -> Bits<128> {
    bits_from_le_bytes::<128>(&v.to_le_bytes())
}

impl<const W: usize, const B: usize> Bench<W, B> {
    fn new() -> Self {
        let mut uut = RxDma::<W, B>::top_level();
        uut.connect_all();
        Bench { uut }
    }

    fn half(&mut self, high: bool) {
        clock_half(&mut self.uut, |u| &mut u.clock, high);
    }
}

impl<const W: usize, const B: usize> DmaPorts for Bench<W, B> {
    const BYTES: usize = W;

    fn reset(&mut self) {
        reset_two_cycles(&mut self.uut, |u| &mut u.clock, |u| &mut u.reset);
    }

    fn drive(&mut self, o: &Offer<'_>) -> Answer {
        let u = &mut self.uut;
        let beat = o.beat.cloned().unwrap_or_default();
        u.s_pay_tvalid.next = o.beat.is_some();
        u.s_pay_tdata.next = bits_from_le_bytes(&beat.bytes);
        u.s_pay_tkeep.next = beat.keep().into();
        u.s_pay_tlast.next = beat.last;
        u.s_pay_tuser.next = beat.user;
        let h = o.header.copied().unwrap_or_default();
        u.s_hdr_valid.next = o.header.is_some();
        u.s_hdr_ip_version.next = u64::from(h.ip_version).into();
        u.s_hdr_src_ip.next = bits128(h.src_ip);
        u.s_hdr_sport.next = u64::from(h.sport).into();
        u.s_hdr_dport.next = u64::from(h.dport).into();
        u.s_hdr_sender_id.next = h.sender_id.into();
        u.s_hdr_message_length.next = u64::from(h.message_length).into();
        u.s_hdr_offset.next = u64::from(h.offset).into();
        u.s_hdr_payload_len.next = u64::from(h.payload_len).into();
        u.s_hdr_retransmit.next = h.retransmit;
        u.s_hdr_host_grants.next = h.host_grants;
        u.s_hdr_type.next = u64::from(h.ptype).into();
        u.s_hdr_incoming.next = u64::from(h.incoming).into();
        u.s_hdr_cutoff_version.next = u64::from(h.cutoff_version).into();
        u.s_hdr_ack_client_id.next = h.ack_client_id.into();
        u.s_hdr_ack_server_port.next = u64::from(h.ack_server_port).into();
        u.s_hdr_body.next = bits_from_le_bytes(&h.body);
        let b = o.buffer.copied().unwrap_or_default();
        u.s_buf_valid.next = o.buffer.is_some();
        u.s_buf_iova.next = b.iova.into();
        u.s_buf_length.next = u64::from(b.length).into();
        u.s_buf_id.next = u64::from(b.id).into();
        u.s_buf_index.next = u64::from(b.index).into();
        u.m_dma_ready.next = o.dma_ready;
        u.m_cpl_ready.next = o.cpl_ready;
        self.half(false);
        let u = &self.uut;
        Answer {
            pay_ready: u.s_pay_tready.val(),
            hdr_ready: u.s_hdr_ready.val(),
            buf_ready: u.s_buf_ready.val(),
            dma: u.m_dma_valid.val().then(|| DmaWrite {
                addr: u.m_dma_addr.val().to_u64(),
                data: lanes_of(u.m_dma_data.val()),
                keep: u.m_dma_keep.val().to_u64(),
                last: u.m_dma_last.val(),
            }),
            cpl: u.m_cpl_valid.val().then(|| bytes512(u.m_cpl_data.val())),
        }
    }

    fn counters(&self) -> Counters {
        let u = &self.uut;
        (
            u.rx_data.val().to_u32(),
            u.rx_errors.val().to_u32(),
            u.no_buffer.val().to_u32(),
            u.bad_frames.val().to_u32(),
            u.empty.val().to_u32(),
        )
    }

    fn edge(&mut self) {
        self.half(true);
    }
}

#[test]
fn rx_dma__matches_the_reference_on_random_traffic() {
    let seed = seed_from_env(0xd3a_0001);
    eprintln!("rx dma: seed {seed:#x} (HOMA_HW_SEED to replay)");
    let stats = rx_dma_model::run(&mut Bench::<64, 512>::new(), seed, 250)
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("  {stats:?}");
    let (data, errors, no_buffer, bad, empty) = stats.counters;
    // The traffic reaches every outcome.
    assert!(
        data > 100 && errors > 0 && no_buffer > 0 && bad > 0 && empty > 0,
        "{stats:?}"
    );
}

#[test]
fn rx_dma__w64_matches_the_reference_on_random_traffic() {
    let seed = seed_from_env(0xd3a_0641);
    eprintln!("rx dma w64: seed {seed:#x} (HOMA_HW_SEED to replay)");
    let frames = if cfg!(debug_assertions) { 30 } else { 250 };
    let stats = rx_dma_model::run(&mut Bench::<8, 64>::new(), seed, frames)
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("  {stats:?}");
    let (data, _, _, _, _) = stats.counters;
    assert!(data > 10, "{stats:?}");
}

#[test]
fn records__match_the_hostif_layouts() {
    let layout = |name: &str| {
        LAYOUTS
            .iter()
            .find(|l| l.name == name)
            .unwrap_or_else(|| panic!("no layout {name}"))
    };
    let offset = |l: &homa_proto::hostif::Layout, f: &str| {
        8 * l
            .fields
            .iter()
            .find(|x| x.name == f)
            .unwrap_or_else(|| panic!("no field {f} in {}", l.name))
            .offset
    };
    let (r, e, c) = (
        RxDataCpl::default(),
        ErrorCpl::default(),
        ControlCpl::default(),
    );
    let rx = layout("completion RX_DATA");
    assert_eq!(rx.size, COMPLETION_LEN);
    for (f, at) in [
        ("rpc_id", r.get_my_offset_rpc_id()),
        ("kind", r.get_my_offset_kind()),
        ("status", r.get_my_offset_status()),
        ("flags", r.get_my_offset_flags()),
        ("length", r.get_my_offset_length()),
        ("cutoff_version", r.get_my_offset_cutoff_version()),
        ("offset", r.get_my_offset_offset()),
        ("buffer_id", r.get_my_offset_buffer_id()),
        ("message_length", r.get_my_offset_message_length()),
        ("local_port", r.get_my_offset_local_port()),
        ("peer_port", r.get_my_offset_peer_port()),
        ("peer", r.get_my_offset_p0()),
        ("ack_client_id", r.get_my_offset_ack_client_id()),
        ("incoming", r.get_my_offset_incoming()),
        ("ack_server_port", r.get_my_offset_ack_server_port()),
        ("phase", r.get_my_offset_phase()),
    ] {
        assert_eq!(at, offset(rx, f), "RX_DATA {f}");
    }
    let ctl = layout("completion CONTROL");
    for (f, at) in [
        ("rpc_id", c.get_my_offset_rpc_id()),
        ("kind", c.get_my_offset_kind()),
        ("status", c.get_my_offset_status()),
        ("type", c.get_my_offset_ptype()),
        ("local_port", c.get_my_offset_local_port()),
        ("peer_port", c.get_my_offset_peer_port()),
        ("peer", c.get_my_offset_p0()),
        ("body", c.get_my_offset_body()),
        ("phase", c.get_my_offset_phase()),
    ] {
        assert_eq!(at, offset(ctl, f), "CONTROL {f}");
    }
    let er = layout("completion ERROR");
    for (f, at) in [
        ("rpc_id", e.get_my_offset_rpc_id()),
        ("kind", e.get_my_offset_kind()),
        ("status", e.get_my_offset_status()),
        ("index", e.get_my_offset_index()),
        ("cookie", e.get_my_offset_cookie_lo()),
        ("ring", e.get_my_offset_ring()),
        ("phase", e.get_my_offset_phase()),
    ] {
        assert_eq!(at, offset(er, f), "ERROR {f}");
    }
    let (t, done) = (TxDoneCpl::default(), layout("completion TX_DONE"));
    for (f, at) in [
        ("rpc_id", t.get_my_offset_rpc_id()),
        ("kind", t.get_my_offset_kind()),
        ("status", t.get_my_offset_status()),
        ("length", t.get_my_offset_length()),
        ("cookie", t.get_my_offset_cookie()),
        ("phase", t.get_my_offset_phase()),
    ] {
        assert_eq!(at, offset(done, f), "TX_DONE {f}");
    }
    let (g, sent) = (GrantSentCpl::default(), layout("completion GRANT_SENT"));
    for (f, at) in [
        ("rpc_id", g.get_my_offset_rpc_id()),
        ("kind", g.get_my_offset_kind()),
        ("status", g.get_my_offset_status()),
        ("priority", g.get_my_offset_priority()),
        ("offset", g.get_my_offset_offset()),
        ("local_port", g.get_my_offset_local_port()),
        ("peer_port", g.get_my_offset_peer_port()),
        ("peer", g.get_my_offset_p0()),
        ("reserved1", g.get_my_offset_reserved1()),
        ("phase", g.get_my_offset_phase()),
    ] {
        assert_eq!(at, offset(sent, f), "GRANT_SENT {f}");
    }
    assert_eq!(<GrantSentCpl as Synth>::BITS, 8 * COMPLETION_LEN);
    assert_eq!(<TxDoneCpl as Synth>::BITS, 8 * COMPLETION_LEN);
    assert_eq!(<RxDataCpl as Synth>::BITS, 8 * COMPLETION_LEN);
    assert_eq!(<ErrorCpl as Synth>::BITS, 8 * COMPLETION_LEN);
    assert_eq!(<ControlCpl as Synth>::BITS, 8 * COMPLETION_LEN);
}
