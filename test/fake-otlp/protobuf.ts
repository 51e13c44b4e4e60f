/**
 * A decoder of OTLP/protobuf trace exports for the test receiver: the protobuf wire format read
 * by hand for the fields the tests look at (opentelemetry/proto/trace/v1/trace.proto and
 * common/v1/common.proto) — resources and their attributes, spans with ids, parent, name, times,
 * attributes and status. Unknown fields are skipped, as protobuf readers do.
 */

import type { ReceivedSpan } from "./index.ts";

interface Field {
  no: number;
  wire: number;
  /** Varint (wire 0) as bigint, 64-bit (wire 1) and 32-bit (wire 5) as raw bytes, bytes (wire 2). */
  varint?: bigint;
  bytes?: Uint8Array;
}

/** The fields of one message, in order. */
function fields(buf: Uint8Array): Field[] {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error("protobuf: truncated varint");
      const byte = buf[pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  const take = (n: number) => {
    if (pos + n > buf.length) throw new Error("protobuf: truncated field");
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const out: Field[] = [];
  while (pos < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, varint: varint() });
    else if (wire === 1) out.push({ no, wire, bytes: take(8) });
    else if (wire === 2) out.push({ no, wire, bytes: take(Number(varint())) });
    else if (wire === 5) out.push({ no, wire, bytes: take(4) });
    else throw new Error(`protobuf: unsupported wire type ${wire}`);
  }
  return out;
}

const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b ?? new Uint8Array());
const hex = (b: Uint8Array | undefined) => Buffer.from(b ?? new Uint8Array()).toString("hex");
const fixed64 = (b: Uint8Array | undefined) => (b ? Buffer.from(b).readBigUInt64LE(0) : 0n);

/** An AnyValue: string 1, bool 2, int 3, double 4, array 5 (kvlist and bytes as undefined). */
function anyValue(buf: Uint8Array): unknown {
  for (const f of fields(buf)) {
    if (f.no === 1) return text(f.bytes);
    if (f.no === 2) return f.varint !== 0n;
    if (f.no === 3) return Number(BigInt.asIntN(64, f.varint ?? 0n));
    if (f.no === 4) return Buffer.from(f.bytes!).readDoubleLE(0);
    if (f.no === 5)
      return fields(f.bytes!)
        .filter((v) => v.no === 1)
        .map((v) => anyValue(v.bytes!));
  }
  return undefined;
}

/** KeyValue: key 1, value 2. */
function keyValue(buf: Uint8Array): [string, unknown] {
  let key = "";
  let value: unknown;
  for (const f of fields(buf)) {
    if (f.no === 1) key = text(f.bytes);
    else if (f.no === 2) value = anyValue(f.bytes!);
  }
  return [key, value];
}

const attributes = (list: Field[], no: number) =>
  Object.fromEntries(list.filter((f) => f.no === no).map((f) => keyValue(f.bytes!)));

/** Span: trace_id 1, span_id 2, parent_span_id 4, name 5, start 7, end 8, attributes 9, status 15. */
function span(buf: Uint8Array, resource: Record<string, unknown>): ReceivedSpan {
  const list = fields(buf);
  const one = (no: number) => list.find((f) => f.no === no);
  const status = one(15) ? fields(one(15)!.bytes!) : [];
  const message = text(status.find((f) => f.no === 2)?.bytes);
  return {
    traceId: hex(one(1)?.bytes),
    spanId: hex(one(2)?.bytes),
    parentSpanId: hex(one(4)?.bytes),
    name: text(one(5)?.bytes),
    attributes: attributes(list, 9),
    status: { code: Number(status.find((f) => f.no === 3)?.varint ?? 0n), ...(message ? { message } : {}) },
    startNs: fixed64(one(7)?.bytes),
    endNs: fixed64(one(8)?.bytes),
    resource,
  };
}

/** Decodes one OTLP/protobuf `ExportTraceServiceRequest` (resource_spans 1). */
export function decodeOtlpProtobuf(body: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of fields(body).filter((f) => f.no === 1)) {
    const parts = fields(rs.bytes!);
    const resourceField = parts.find((f) => f.no === 1);
    const resource = resourceField ? attributes(fields(resourceField.bytes!), 1) : {};
    for (const ss of parts.filter((f) => f.no === 2)) {
      for (const s of fields(ss.bytes!).filter((f) => f.no === 2)) spans.push(span(s.bytes!, resource));
    }
  }
  return spans;
}
