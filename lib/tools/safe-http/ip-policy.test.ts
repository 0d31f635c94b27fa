import { describe, expect, it } from "vitest";
import { classifyAddress, isGlobalUnicast, parseIpLiteral } from "./ip-policy";

describe("parseIpLiteral normalises every IPv4 notation a URL parser accepts", () => {
  it.each([
    ["2130706433", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0x7F.0.0.1", "127.0.0.1"],
    ["0177.0.0.01", "127.0.0.1"],
    ["127.0.0.1.", "127.0.0.1"],
    ["10.1", "10.0.0.1"],
    ["192.168.257", "192.168.1.1"],
    ["0", "0.0.0.0"],
    ["0x", "0.0.0.0"],
    ["3232235777", "192.168.1.1"],
    ["0xa9fea9fe", "169.254.169.254"],
    ["8.8.8.8", "8.8.8.8"],
  ])("%s is %s", (input, address) => {
    expect(parseIpLiteral(input)).toEqual({ address, family: 4 });
  });

  it.each(["2130706433", "0x7f.1", "017700000001", "127.1", "0x7f000001", "0xa9fea9fe", "192.168.257"])(
    "agrees with the WHATWG URL parser on %s",
    (input) => {
      expect(parseIpLiteral(input)?.address).toBe(new URL(`http://${input}/`).hostname);
    },
  );

  it.each([
    "example.com",
    "1.2.3.4.5",
    "256.0.0.1",
    "1.2.3.0x100",
    "4294967296",
    "08.0.0.1",
    "0x7g.0.0.1",
    "1..2",
    "",
    "127.0.0.1 ",
    "[127.0.0.1]",
  ])("rejects %j as an IP literal", (input) => {
    expect(parseIpLiteral(input)).toBeNull();
  });

  it.each([
    ["[::1]", "::1"],
    ["::1", "::1"],
    ["[0:0:0:0:0:0:0:1]", "::1"],
    ["[::ffff:127.0.0.1]", "::ffff:7f00:1"],
    ["[::FFFF:7F00:1]", "::ffff:7f00:1"],
    ["[2606:4700:0000:0000:0000:0000:0000:1111]", "2606:4700::1111"],
    ["[2001:db8:0:0:1:0:0:1]", "2001:db8::1:0:0:1"],
    ["[::]", "::"],
  ])("IPv6 %s is %s", (input, address) => {
    expect(parseIpLiteral(input)).toEqual({ address, family: 6 });
  });

  it.each([
    "[::1",
    "::1]",
    "1:2:3:4:5:6:7:8:9",
    "1::2::3",
    ":::1",
    "fe80::1%eth0",
    "::ffff:127.0.0.01",
    "12345::1",
    "[::g]",
  ])("rejects malformed IPv6 %j", (input) => {
    expect(parseIpLiteral(input)).toBeNull();
  });
});

describe("isGlobalUnicast refuses every IPv4 address that is not global unicast", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.255.255.254", "a loopback address"],
    ["10.0.0.5", "a private address"],
    ["172.16.0.1", "a private address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.1", "a private address"],
    ["100.64.0.1", "a carrier-grade NAT address"],
    ["100.127.255.255", "a carrier-grade NAT address"],
    ["169.254.169.254", "a cloud metadata address"],
    ["168.63.129.16", "a cloud metadata address"],
    ["169.254.1.1", "a link-local address"],
    ["224.0.0.1", "a multicast address"],
    ["239.255.255.250", "a multicast address"],
    ["0.0.0.0", "an unspecified address"],
    ["0.1.2.3", 'a reserved address ("this network")'],
    ["192.0.0.8", "a reserved address (IETF protocol assignments)"],
    ["192.0.2.1", "a documentation address"],
    ["198.51.100.7", "a documentation address"],
    ["203.0.113.9", "a documentation address"],
    ["198.18.0.1", "a benchmarking address"],
    ["198.19.255.255", "a benchmarking address"],
    ["240.0.0.1", "a reserved address"],
    ["255.255.255.255", "a broadcast address"],
    // odd notations are classified by their value, not their spelling
    ["2130706433", "a loopback address"],
    ["0x7f.1", "a loopback address"],
  ])("%s is %s", (address, description) => {
    expect(isGlobalUnicast(address)).toBe(false);
    expect(classifyAddress(address)).toEqual({ global: false, description });
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.15.255.255",
    "172.32.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "223.255.255.255",
    "192.0.3.1",
  ])("%s is global unicast", (address) => {
    expect(isGlobalUnicast(address)).toBe(true);
  });
});

describe("isGlobalUnicast refuses every IPv6 address that is not global unicast", () => {
  it.each([
    ["::", "an unspecified address"],
    ["::1", "a loopback address"],
    ["::ffff:127.0.0.1", "an IPv4-mapped IPv6 address for 127.0.0.1"],
    ["::ffff:7f00:1", "an IPv4-mapped IPv6 address for 127.0.0.1"],
    ["::ffff:a9fe:a9fe", "an IPv4-mapped IPv6 address for 169.254.169.254"],
    ["::ffff:8.8.8.8", "an IPv4-mapped IPv6 address for 8.8.8.8"],
    ["::127.0.0.1", "an IPv4-compatible IPv6 address for 127.0.0.1"],
    ["::a00:5", "an IPv4-compatible IPv6 address for 10.0.0.5"],
    ["64:ff9b::7f00:1", "a NAT64 address for 127.0.0.1, a loopback address"],
    ["64:ff9b::10.0.0.1", "a NAT64 address for 10.0.0.1, a private address"],
    ["64:ff9b::a9fe:a9fe", "a NAT64 address for 169.254.169.254, a cloud metadata address"],
    ["64:ff9b:1::1", "a local-use NAT64 address"],
    ["2002:7f00:1::", "a 6to4 address for 127.0.0.1, a loopback address"],
    ["2002:c0a8:101::1", "a 6to4 address for 192.168.1.1, a private address"],
    ["2001::1", "a Teredo address"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "a Teredo address"],
    ["2001:db8::1", "a documentation address"],
    ["3fff::1", "a documentation address"],
    ["2001:2::1", "a benchmarking address"],
    ["2001:10::1", "a reserved address (IETF protocol assignments)"],
    ["fc00::1", "a private address (unique local)"],
    ["fd12:3456::1", "a private address (unique local)"],
    ["fd00:ec2::254", "a cloud metadata address"],
    ["fe80::1", "a link-local address"],
    ["febf::1", "a link-local address"],
    ["fec0::1", "a site-local address"],
    ["ff02::1", "a multicast address"],
    ["ff05::1:3", "a multicast address"],
    ["100::1", "a discard-only address"],
    ["4000::1", "a reserved address"],
    ["1::", "a reserved address"],
  ])("%s is %s", (address, description) => {
    expect(isGlobalUnicast(address)).toBe(false);
    expect(classifyAddress(address)).toEqual({ global: false, description });
  });

  it.each(["2606:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001::200e", "64:ff9b::808:808", "2002:808:808::1"])(
    "%s is global unicast",
    (address) => {
      expect(isGlobalUnicast(address)).toBe(true);
    },
  );

  it.each(["fe80::1%eth0", "not-an-ip", "", "example.com", "::1%lo"])("fails closed on %j", (address) => {
    expect(isGlobalUnicast(address)).toBe(false);
  });
});
