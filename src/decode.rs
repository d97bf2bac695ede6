//! `homa-nic decode`: one line per frame, human-readable or JSON.
//!
//! JSON field names are those of SPEC §1 in snake_case. Two names need a word: `priority` is
//! the GRANT/RESEND header field, while the priority the frame travelled at (top three bits
//! of TOS / Traffic Class) is `ip_priority`; DATA's payload size is `payload_length`
//! (`length` is RESEND's field).

use crate::capture::Frame;
use homa_proto::wire::{Body, ChecksumCapabilities, FrameRepr, HomaPacket, IpRepr, Reason};
use serde_json::{Map, Value, json};
use std::io::{self, Write};

/// Output style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// One human-readable line per frame.
    Text,
    /// One JSON object per line.
    Json,
}

/// What a run decoded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Homa frames decoded.
    pub homa: usize,
    /// Well-formed frames that are not Homa (ARP, TCP, ...), skipped.
    pub skipped: usize,
    /// Malformed frames.
    pub malformed: usize,
}

/// Decodes `frames`, writing one line each to `out`.
pub fn decode_frames(
    frames: &[Frame],
    style: Style,
    caps: &ChecksumCapabilities,
    out: &mut impl Write,
) -> io::Result<Summary> {
    let mut summary = Summary::default();
    for (index, frame) in frames.iter().enumerate() {
        let parsed = match &frame.bytes {
            Ok(bytes) => FrameRepr::parse_with_view(bytes, frame.link, caps)
                .map_err(|e| (e.reason == Reason::NotHoma, e.to_string())),
            Err(why) => Err((false, why.clone())),
        };
        let time = frame.timestamp.map(|t| t.as_nanos());
        match (parsed, style) {
            (Ok((repr, _)), Style::Text) => {
                summary.homa += 1;
                match frame.timestamp {
                    Some(t) => writeln!(out, "{index} {:.9} {repr}", t.as_secs_f64())?,
                    None => writeln!(out, "{index} {repr}")?,
                }
            }
            (Ok((repr, view)), Style::Json) => {
                summary.homa += 1;
                let mut obj = frame_json(&repr, &view);
                obj.insert("frame".into(), json!(index));
                if let Some(t) = time {
                    obj.insert("time_ns".into(), json!(t));
                }
                writeln!(out, "{}", Value::Object(obj))?;
            }
            (Err((not_homa, why)), style) => {
                let key = if not_homa {
                    summary.skipped += 1;
                    "skipped"
                } else {
                    summary.malformed += 1;
                    "error"
                };
                match style {
                    Style::Text => writeln!(out, "{index} {key}: {why}")?,
                    Style::Json => writeln!(out, "{}", json!({ "frame": index, key: why }))?,
                }
            }
        }
    }
    Ok(summary)
}

/// Every header field of a decoded frame, under SPEC §1's names.
pub fn frame_json(repr: &FrameRepr<'_>, view: &HomaPacket<&[u8]>) -> Map<String, Value> {
    let mut o = Map::new();
    let mut put = |k: &str, v: Value| {
        o.insert(k.to_owned(), v);
    };
    if let Some(eth) = repr.ethernet {
        put("eth_src", json!(eth.src_addr.to_string()));
        put("eth_dst", json!(eth.dst_addr.to_string()));
        if let Some(tag) = eth.vlan {
            put(
                "vlan",
                json!({ "vid": tag.vid, "pcp": tag.pcp, "dei": tag.dei }),
            );
        }
    }
    match repr.ip {
        IpRepr::V4(ip) => {
            put("ip_version", json!(4));
            put("tos", json!(ip.tos));
            put("ttl", json!(ip.ttl));
        }
        IpRepr::V6(ip) => {
            put("ip_version", json!(6));
            put("traffic_class", json!(ip.traffic_class));
            put("flow_label", json!(ip.flow_label));
            put("hop_limit", json!(ip.hop_limit));
        }
    }
    put("src", json!(repr.ip.src_addr().to_string()));
    put("dst", json!(repr.ip.dst_addr().to_string()));
    put("ip_protocol", json!(repr.ip.protocol()));
    put("ip_priority", json!(repr.priority()));

    let h = &repr.homa;
    put("sport", json!(h.sport));
    put("dport", json!(h.dport));
    put("type", json!(h.packet_type().name()));
    put("type_value", json!(u8::from(h.packet_type())));
    put("sequence", json!(view.sequence()));
    put("doff", json!(view.doff()));
    put("flags", json!(view.flags()));
    put("checksum", json!(view.checksum()));
    put("urgent", json!(view.urgent()));
    put("sender_id", json!(h.sender_id));
    put("sender_role", json!(sender_role(h.sender_id)));
    put("receiver_id", json!(h.sender_id ^ 1));
    match &h.body {
        Body::Data(d) => {
            put("message_length", json!(d.message_length));
            put("incoming", json!(d.incoming));
            put(
                "ack",
                json!({
                    "client_id": view.ack_client_id(),
                    "server_port": view.ack_server_port(),
                }),
            );
            put("cutoff_version", json!(d.cutoff_version));
            put("retransmit", json!(view.retransmit()));
            put("seg_offset", json!(view.seg_offset()));
            put("offset", json!(d.offset));
            put("payload_length", json!(d.payload.len()));
        }
        Body::Grant(g) => {
            put("offset", json!(g.offset));
            put("priority", json!(g.priority));
        }
        Body::Resend(r) => {
            put("offset", json!(r.offset));
            put("length", json!(r.length));
            put("priority", json!(r.priority));
        }
        Body::Cutoffs(c) => {
            put("unsched_cutoffs", json!(c.unsched_cutoffs));
            put("cutoff_version", json!(c.cutoff_version));
        }
        Body::Ack(acks) => {
            put("num_acks", json!(acks.as_slice().len()));
            let list: Vec<Value> = acks
                .as_slice()
                .iter()
                .map(|a| json!({ "client_id": a.client_id, "server_port": a.server_port }))
                .collect();
            put("acks", Value::Array(list));
        }
        Body::RpcUnknown | Body::Busy | Body::Freeze | Body::NeedAck => {}
    }
    o
}

/// The role of a packet's sender, from the low bit of its `sender_id` (SPEC §1.3).
pub fn sender_role(sender_id: u64) -> &'static str {
    if sender_id & 1 == 0 {
        "client"
    } else {
        "server"
    }
}
