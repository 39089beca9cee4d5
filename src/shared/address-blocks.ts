/**
 * The table of special-purpose address blocks the address guard classifies addresses by. Blocks
 * are written in their own family; the guard places IPv4 a.b.c.d at ::ffff:a.b.c.d in one 128-bit
 * space, adds the NAT64 image of every IPv4 block, and lets the most specific block containing an
 * address give its class:
 *
 * | Block                     | Class       | Note                                                   |
 * |---------------------------|-------------|--------------------------------------------------------|
 * | 0.0.0.0/8, ::/128         | unspecified | "this network"; 0.0.0.0 reaches the local host on Linux |
 * | 127.0.0.0/8, ::1/128      | loopback    |                                                        |
 * | 10/8, 172.16/12, 192.168/16, fc00::/7 | private |                                           |
 * | fec0::/10                 | private     | deprecated site-local, still routed inside some sites  |
 * | 169.254.0.0/16, fe80::/10 | link-local  |                                                        |
 * | 100.64.0.0/10             | cgnat       |                                                        |
 * | 169.254.169.254, 169.254.170.2, 169.254.170.23, 100.100.100.200, fd00:ec2::254, fd00:ec2::23 | metadata | cloud instance metadata / credential endpoints (AWS, GCP, Azure, OCI, ECS, EKS Pod Identity, Alibaba) |
 * | 224.0.0.0/4, ff00::/8     | multicast   |                                                        |
 * | 240.0.0.0/4, 255.255.255.255/32 | reserved | future use, limited broadcast                     |
 * | 192.0.0.0/24              | reserved    | IETF protocol assignments                              |
 * | 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 | reserved | documentation (TEST-NET-1..3)      |
 * | 192.88.99.0/24            | reserved    | deprecated 6to4 relay anycast                          |
 * | 198.18.0.0/15             | reserved    | benchmarking                                           |
 * | ::/0 outside 2000::/3     | reserved    | not allocated as global unicast (covers 100::/64 discard, 5f00::/16 SRv6, ::/96 IPv4-compatible, 64:ff9b:1::/48 local NAT64) |
 * | 2001::/23                 | reserved    | IETF protocol assignments (Teredo, benchmarking, ORCHID); its few anycast services are no scan targets |
 * | 2001:db8::/32, 3fff::/20  | reserved    | documentation                                          |
 * | 2002::/16                 | reserved    | 6to4 (deprecated, RFC 7526): would tunnel to any embedded IPv4, loopback included |
 * | ::ffff:0:0/96             | as its IPv4 | IPv4-mapped                                            |
 * | 64:ff9b::/96              | as its IPv4 | NAT64 (RFC 6052): DNS64 hands these out for every IPv4-only name on IPv6-only hosts, so refusing the block would break them; the gateway delivers to the embedded IPv4, so that is what is judged |
 * | everything else           | public      |                                                        |
 */
/** What an address is, as the table above classifies it; the guard decides from the class. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

/** The IPv4 blocks, in dotted-quad CIDR notation, each with its class. */
export const IPV4_BLOCKS: readonly (readonly [string, AddressClass])[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'reserved'],
  ['169.254.169.254/32', 'metadata'],
  ['169.254.170.2/32', 'metadata'],
  ['169.254.170.23/32', 'metadata'],
  ['100.100.100.200/32', 'metadata'],
];

/** The IPv6 blocks, each with its class; ::/0 is listed so every address falls in some block. */
export const IPV6_BLOCKS: readonly (readonly [string, AddressClass])[] = [
  ['::/0', 'reserved'],
  ['2000::/3', 'public'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'public'],
  ['64:ff9b::/96', 'public'],
  ['64:ff9b:1::/48', 'reserved'],
  ['100::/64', 'reserved'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['2002::/16', 'reserved'],
  ['3fff::/20', 'reserved'],
  ['fc00::/7', 'private'],
  ['fec0::/10', 'private'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
  ['fd00:ec2::254/128', 'metadata'],
  ['fd00:ec2::23/128', 'metadata'],
];
