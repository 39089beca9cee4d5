/**
 * DNS messages printed as miekg/dns's String() prints them (msg.go, types.go, edns.go): nuclei's
 * `raw`, `answer`, `question`... are these texts and templates match regexes on them (`IN\tCNAME\t`
 * for takeovers, `NXDOMAIN` in the header). Works on dns-packet's decoded messages. Records
 * dns-packet cannot decode print in RFC 3597 form (`\# length hex`), as miekg's unknown RRs do.
 */
import type { Answer, Packet, Question } from 'dns-packet';

const TYPE_NUMBERS: Record<string, number> = {
  A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, HINFO: 13, MX: 15, TXT: 16, RP: 17, AAAA: 28, SRV: 33, NAPTR: 35, DNAME: 39,
  OPT: 41, DS: 43, SSHFP: 44, RRSIG: 46, NSEC: 47, DNSKEY: 48, NSEC3: 50, TLSA: 52, CAA: 257, ANY: 255,
};

/** miekg's type mnemonic (`TYPE65` for one it does not know by name). */
function typeName(type: string): string {
  const unknown = /^UNKNOWN_(\d+)$/.exec(type);
  return unknown ? `TYPE${unknown[1]}` : type;
}

/** The number of a record type (the `rcode`-like numeric values templates rarely need). */
export function typeNumber(type: string): number | undefined {
  const unknown = /^(?:UNKNOWN_|TYPE)(\d+)$/.exec(type);
  return unknown ? Number(unknown[1]) : TYPE_NUMBERS[type.toUpperCase()];
}

function className(klass: string | undefined): string {
  if (klass === undefined) return 'IN';
  const unknown = /^UNKNOWN_(\d+)$/.exec(klass);
  return unknown ? `CLASS${unknown[1]}` : klass;
}

/** sprintName: the fully qualified name, escapes for the characters zone files reserve. */
function fqdn(name: string): string {
  if (name === '' || name === '.') return '.';
  const escaped = name.replace(/[ ();"@\\$]/g, (c) => `\\${c}`);
  return escaped.endsWith('.') ? escaped : `${escaped}.`;
}

/** sprintTxt / sprintTxtOctet: each string quoted, `"` and `\` escaped, non-printable bytes as \DDD. */
function quoted(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b > 0x7e) out += `\\${String(b).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

const asBytes = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(String(v ?? ''), 'utf8'));

/** A record's data as miekg prints it after the header. */
function rdataText(record: Answer): string {
  const data = (record as { data?: unknown }).data as never;
  const d = data as Record<string, unknown>;
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return String(data);
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return fqdn(String(data));
    case 'MX':
      return `${String(d.preference)} ${fqdn(String(d.exchange))}`;
    case 'TXT':
      return (Array.isArray(data) ? (data as unknown[]) : [data]).map((s) => quoted(asBytes(s))).join(' ');
    case 'SOA':
      return [fqdn(String(d.mname)), fqdn(String(d.rname)), d.serial, d.refresh, d.retry, d.expire, d.minimum].join(' ');
    case 'SRV':
      return `${String(d.priority)} ${String(d.weight)} ${String(d.port)} ${fqdn(String(d.target))}`;
    case 'CAA':
      return `${String(d.flags)} ${String(d.tag)} ${quoted(asBytes(d.value))}`;
    case 'DS':
      return `${String(d.keyTag)} ${String(d.algorithm)} ${String(d.digestType)} ${asBytes(d.digest).toString('hex').toUpperCase()}`;
    case 'TLSA':
      return `${String(d.usage)} ${String(d.selector)} ${String(d.matchingType)} ${asBytes(d.certificate).toString('hex')}`;
    case 'DNSKEY':
      return `${String(d.flags)} 3 ${String(d.algorithm)} ${asBytes(d.key).toString('base64')}`;
    case 'HINFO':
      return `${quoted(asBytes(d.cpu))} ${quoted(asBytes(d.os))}`;
    default: {
      const raw = Buffer.isBuffer(data) ? data : Buffer.alloc(0);
      return `\\# ${raw.length}${raw.length > 0 ? ` ${raw.toString('hex')}` : ''}`;
    }
  }
}

/** RR_Header.String(): name, TTL, class, type, each followed by a tab. */
function headerText(record: Answer): string {
  const r = record as { name: string; ttl?: number; class?: string; type: string };
  return `${fqdn(r.name)}\t${r.ttl ?? 0}\t${className(r.class)}\t${typeName(r.type)}\t`;
}

/** The OPT pseudo-record as miekg prints it (it begins with a line break). */
function optText(record: Answer): string {
  const o = record as { ednsVersion?: number; flags?: number; udpPayloadSize?: number };
  const flags = ((o.flags ?? 0) & 0x8000) !== 0 ? ' do' : '';
  return `\n;; OPT PSEUDOSECTION:\n; EDNS: version ${o.ednsVersion ?? 0}; flags:${flags}; udp: ${o.udpPayloadSize ?? 0}`;
}

/** RR.String(). */
export function recordText(record: Answer): string {
  if (record.type === 'OPT') return optText(record);
  return headerText(record) + rdataText(record);
}

/** The part after the header, trailing dot dropped: nuclei's per-type entries (`cname`, `a`...). */
export function recordValue(record: Answer): string {
  return rdataText(record).replace(/\.$/, '');
}

/** Question.String(): `;name.\tIN\t A` (a space before the type, as dig prints it). */
export function questionText(question: Question): string {
  return `;${fqdn(question.name)}\t${className(question.class)}\t ${typeName(question.type)}`;
}

/** The concatenation nuclei's rrToString makes (no separator between records). */
export function recordsText(records: Answer[] | undefined): string {
  return (records ?? []).map(recordText).join('');
}

/** Msg.String(): header, flags and counts, the OPT pseudo-section, then each section. */
export function messageText(packet: Packet): string {
  const p = packet as Packet & { opcode?: string; rcode?: string; flag_qr?: boolean; flag_aa?: boolean; flag_tc?: boolean; flag_rd?: boolean; flag_ra?: boolean; flag_z?: boolean; flag_ad?: boolean; flag_cd?: boolean };
  const flags = ([['qr', p.flag_qr], ['aa', p.flag_aa], ['tc', p.flag_tc], ['rd', p.flag_rd], ['ra', p.flag_ra], ['z', p.flag_z], ['ad', p.flag_ad], ['cd', p.flag_cd]] as const)
    .filter(([, on]) => on)
    .map(([name]) => ` ${name}`)
    .join('');
  const questions = p.questions ?? [];
  const answers = p.answers ?? [];
  const authorities = p.authorities ?? [];
  const additionals = p.additionals ?? [];
  let s = `;; opcode: ${p.opcode ?? 'QUERY'}, status: ${p.rcode ?? 'NOERROR'}, id: ${p.id ?? 0}\n;; flags:${flags}; `;
  s += `QUERY: ${questions.length}, ANSWER: ${answers.length}, AUTHORITY: ${authorities.length}, ADDITIONAL: ${additionals.length}\n`;
  const opt = additionals.find((r) => r.type === 'OPT');
  if (opt) s += `${optText(opt)}\n`;
  if (questions.length > 0) s += `\n;; QUESTION SECTION:\n${questions.map((q) => `${questionText(q)}\n`).join('')}`;
  if (answers.length > 0) s += `\n;; ANSWER SECTION:\n${answers.map((r) => `${recordText(r)}\n`).join('')}`;
  if (authorities.length > 0) s += `\n;; AUTHORITY SECTION:\n${authorities.map((r) => `${recordText(r)}\n`).join('')}`;
  const others = additionals.filter((r) => r.type !== 'OPT');
  if (others.length > 0) s += `\n;; ADDITIONAL SECTION:\n${others.map((r) => `${recordText(r)}\n`).join('')}`;
  return s;
}
