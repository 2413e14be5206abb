// Host unit test of the capture encoder (fabric/vhca-capture.c): known
// frames become the IBA packets they stand for, checked here byte by byte
// (headers, PSNs, lengths, CRCs by a bitwise CRC of the test's own) and then
// by Debian's tshark (its InfiniBand dissector's own fields, no malformed
// mark; selftests/capture/capcheck.py recomputes ICRC and VCRC with zlib).
// The tshark cases skip when tshark is not installed (scripts/deps.sh
// installs it).
//
// SPDX-License-Identifier: GPL-2.0-or-later

#include <gtest/gtest.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

extern "C" {
#include "vhca-bth.h"
#include "vhca-capture.h"
#include "vhca-mad.h"
}

namespace {

const char kFile[] = "build/unit/capture-known.pcapng";

uint8_t g_data[9000];

uint16_t Be16(const uint8_t *p) { return p[0] << 8 | p[1]; }
uint32_t Be32(const uint8_t *p) { return (uint32_t)Be16(p) << 16 | Be16(p + 2); }

// Bitwise, not the encoder's tables: IBA 7.8.1 / 7.8.2.
uint32_t BitCrc32(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int b = 0; b < 8; b++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

uint16_t BitVcrc(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffff;
	while (n--) {
		crc ^= *p++;
		for (int b = 0; b < 8; b++)
			crc = crc & 1 ? (crc >> 1) ^ 0xd008u : crc >> 1;
	}
	return ~crc;
}

VhcaWireFrame Rc(uint8_t kind, uint8_t opcode, uint32_t psn, uint32_t len,
		 uint32_t packets)
{
	VhcaWireFrame f = {};
	f.kind = kind;
	f.opcode = opcode;
	f.qp_type = VHCA_QPT_RC;
	f.slid = kind == VHCA_WIRE_RESPONSE ? 3 : 2;
	f.dlid = kind == VHCA_WIRE_RESPONSE ? 2 : 3;
	f.src_qpn = kind == VHCA_WIRE_RESPONSE ? 0x12 : 0x11;
	f.dst_qpn = kind == VHCA_WIRE_RESPONSE ? 0x11 : 0x12;
	f.psn = psn;
	f.packets = packets;
	f.length = len;
	bool data = kind == VHCA_WIRE_REQUEST ? !vhca_wqe_returns_data(opcode)
					      : opcode == VHCA_WQE_RDMA_READ;
	f.payload = g_data;
	f.payload_len = data ? len : 0;
	return f;
}

// A 256-byte MAD as a GSI/SMI datagram from LID 2 to LID 1.
VhcaWireFrame Mad(uint8_t *mad, uint8_t mclass, uint8_t cver, uint8_t method,
		  uint16_t attr, bool smi)
{
	memset(mad, 0, VHCA_MAD_SIZE);
	mad[VHCA_MAD_OFF(vhca_mad_hdr, base_version)] = 1;
	mad[VHCA_MAD_OFF(vhca_mad_hdr, mgmt_class)] = mclass;
	mad[VHCA_MAD_OFF(vhca_mad_hdr, class_version)] = cver;
	mad[VHCA_MAD_OFF(vhca_mad_hdr, method)] = method;
	mad[VHCA_MAD_OFF(vhca_mad_hdr, tid) + 7] = 0x42;       // big-endian
	mad[VHCA_MAD_OFF(vhca_mad_hdr, attr_id)] = attr >> 8;
	mad[VHCA_MAD_OFF(vhca_mad_hdr, attr_id) + 1] = attr;
	VhcaWireFrame f = {};
	f.kind = VHCA_WIRE_DATAGRAM;
	f.opcode = VHCA_WQE_SEND;
	f.qp_type = smi ? VHCA_QPT_SMI : VHCA_QPT_GSI;
	f.slid = 2;
	f.dlid = 1;
	f.src_qpn = smi ? 0 : 1;
	f.dst_qpn = smi ? 0 : 1;
	f.qkey = smi ? 0 : VHCA_WIRE_GSI_QKEY;
	f.length = 256;
	f.payload = mad;
	f.payload_len = 256;
	return f;
}

struct Known {
	std::vector<VhcaWireFrame> frames;
	uint8_t smp[256], sa[256], cm[256];
	Known()
	{
		for (size_t i = 0; i < sizeof(g_data); i++)
			g_data[i] = i * 7;
		// SEND of 5000 bytes at MTU 2048: First, Middle, Last (PSN 100..102)
		frames.push_back(Rc(VHCA_WIRE_REQUEST, VHCA_WQE_SEND, 100, 5000, 3));
		VhcaWireFrame w = Rc(VHCA_WIRE_REQUEST, VHCA_WQE_RDMA_WRITE, 103, 100, 1);
		w.remote_addr = 0x7f0000001000ull;
		w.rkey = 0x1234;
		frames.push_back(w);
		VhcaWireFrame rd = Rc(VHCA_WIRE_REQUEST, VHCA_WQE_RDMA_READ, 104, 3000, 2);
		rd.remote_addr = 0x7f0000002000ull;
		rd.rkey = 0x5678;
		frames.push_back(rd);
		frames.push_back(Rc(VHCA_WIRE_RESPONSE, VHCA_WQE_RDMA_READ, 104, 3000, 2));
		frames.push_back(Rc(VHCA_WIRE_RESPONSE, VHCA_WQE_SEND, 100, 5000, 3));
		VhcaWireFrame ud = {};
		ud.kind = VHCA_WIRE_DATAGRAM;
		ud.opcode = VHCA_WQE_SEND_WITH_IMM;
		ud.flags = VHCA_WIRE_F_IMM | VHCA_WIRE_F_GRH;
		ud.imm_inv = 0x11223344;
		ud.qp_type = VHCA_QPT_UD;
		ud.slid = 2;
		ud.dlid = 3;
		ud.src_qpn = 0x21;
		ud.dst_qpn = 0x22;
		ud.qkey = 0x11111111;
		ud.hop_limit = 255;
		ud.src_guid = 0x5254000000000a01ull;
		ud.dgid[0] = 0xfe;
		ud.dgid[1] = 0x80;
		ud.dgid[15] = 0x01;
		ud.length = 61;         // a pad of 3
		ud.payload = g_data;
		ud.payload_len = 61;
		frames.push_back(ud);
		// SubnGet(NodeInfo), LID routed; SA GetTable(PathRecord); CM REQ
		frames.push_back(Mad(smp, 0x01, 1, 0x01, 0x0011, true));
		frames.push_back(Mad(sa, 0x03, 2, 0x12, 0x0035, false));
		frames.push_back(Mad(cm, 0x07, 2, 0x03, 0x0010, false));
		VhcaWireFrame rnr = Rc(VHCA_WIRE_RESPONSE, VHCA_WQE_SEND, 105, 10, 1);
		rnr.syndrome = VHCA_WIRE_NAK_RNR;
		rnr.rnr_timer = 14;
		frames.push_back(rnr);
	}
};

TEST(Capture, KnownPacketsByteByByte)
{
	Known k;
	uint8_t pkt[VHCA_CAPTURE_MAX_PACKET];
	unsigned first, mtu;

	// The SEND: three packets, PSN 100..102, AckReq on the last only.
	ASSERT_EQ(3u, vhca_capture_packets(&k.frames[0], 2048, &first, &mtu));
	EXPECT_EQ(2048u, mtu);
	for (unsigned i = 0; i < 3; i++) {
		size_t len = vhca_capture_packet(&k.frames[0], 2048, i, pkt);
		uint32_t pay = i < 2 ? 2048 : 5000 - 4096;
		ASSERT_EQ(8 + 12 + pay + 4 + 2, len);
		EXPECT_EQ(0x02, pkt[1] & 3);                    // LNH local
		EXPECT_EQ(3, Be16(pkt + 2));                     // DLID
		EXPECT_EQ((len - 2) / 4, Be16(pkt + 4) & 0x7ff); // PktLen
		EXPECT_EQ(i, pkt[8]);                            // First, Middle, Last
		EXPECT_EQ(0xffff, Be16(pkt + 10));               // P_Key
		EXPECT_EQ(0x12u, Be32(pkt + 12));                // DestQP
		EXPECT_EQ((i == 2 ? 0x80000000u : 0) | (100 + i), Be32(pkt + 16));
		EXPECT_EQ(0, memcmp(pkt + 20, g_data + i * 2048, pay));
		// ICRC: LRH and resv8a as ones; LSB first, then the VCRC
		uint8_t inv[20];
		memcpy(inv, pkt, 20);
		memset(inv, 0xff, 8);
		inv[12] = 0xff;
		uint32_t icrc = ~BitCrc32(BitCrc32(~0u, inv, 20), pkt + 20, len - 26);
		uint32_t got = pkt[len - 6] | pkt[len - 5] << 8 |
			       pkt[len - 4] << 16 | (uint32_t)pkt[len - 3] << 24;
		EXPECT_EQ(icrc, got);
		EXPECT_EQ(BitVcrc(pkt, len - 2), pkt[len - 2] | pkt[len - 1] << 8);
	}
	// A segment at 64 KiB of a 100 KiB WRITE at MTU 4096: packets 16..24
	VhcaWireFrame seg = Rc(VHCA_WIRE_REQUEST, VHCA_WQE_RDMA_WRITE, 10,
			       100 << 10, 25);
	static uint8_t big[36 << 10];
	seg.offset = 64 << 10;
	seg.payload = big;
	seg.payload_len = 36 << 10;
	ASSERT_EQ(9u, vhca_capture_packets(&seg, 4096, &first, &mtu));
	EXPECT_EQ(16u, first);
	vhca_capture_packet(&seg, 4096, 8, pkt);
	EXPECT_EQ(VHCA_BTH_RC | VHCA_BTH_WRITE_LAST, pkt[8]);
	EXPECT_EQ(0x80000000u | 34, Be32(pkt + 16));
	// The READ request: one packet whatever its length, with a RETH.
	ASSERT_EQ(1u, vhca_capture_packets(&k.frames[2], 4096, &first, &mtu));
	size_t len = vhca_capture_packet(&k.frames[2], 4096, 0, pkt);
	EXPECT_EQ(8 + 12 + 16 + 4 + 2u, len);
	EXPECT_EQ(VHCA_BTH_RC | VHCA_BTH_READ_REQUEST, pkt[8]);
	EXPECT_EQ(3000u, Be32(pkt + 20 + 12));                   // DMA length
	// The ACK of the SEND names its last PSN.
	vhca_capture_packet(&k.frames[4], 2048, 0, pkt);
	EXPECT_EQ(VHCA_BTH_RC | VHCA_BTH_ACK, pkt[8]);
	EXPECT_EQ(102u, Be32(pkt + 16) & 0xffffff);
	// The UD SEND with GRH: LNH 3, GRH PayLen, pad 3, DETH then ImmDt.
	len = vhca_capture_packet(&k.frames[5], 2048, 0, pkt);
	EXPECT_EQ(8 + 40 + 12 + 8 + 4 + 61 + 3 + 4 + 2u, len);
	EXPECT_EQ(0x03, pkt[1] & 3);
	EXPECT_EQ(len - 2 - 48, Be16(pkt + 12));
	EXPECT_EQ(VHCA_BTH_UD | VHCA_BTH_SEND_ONLY_IMM, pkt[48]);
	EXPECT_EQ(3, (pkt[49] >> 4) & 3);
	EXPECT_EQ(0x11111111u, Be32(pkt + 60));
	EXPECT_EQ(0x21u, Be32(pkt + 64));
	// The SMP on VL15.
	vhca_capture_packet(&k.frames[6], 2048, 0, pkt);
	EXPECT_EQ(0xf0, pkt[0]);
}

TEST(Capture, Filters)
{
	VhcaCaptureFilter flt;

	ASSERT_EQ(nullptr, vhca_capture_filter_parse("qpn=0x12,lid=3,snaplen=64", &flt));
	EXPECT_EQ(0x12u, flt.qpn);
	EXPECT_EQ(3u, flt.lid);
	EXPECT_EQ(64u, flt.snaplen);
	EXPECT_FALSE(flt.mads_only);
	ASSERT_EQ(nullptr, vhca_capture_filter_parse("mads", &flt));
	EXPECT_TRUE(flt.mads_only);
	EXPECT_EQ(VHCA_CAPTURE_ANY, flt.qpn);
	EXPECT_NE(nullptr, vhca_capture_filter_parse("qpn=", &flt));
	EXPECT_NE(nullptr, vhca_capture_filter_parse("vl=3", &flt));
	EXPECT_NE(nullptr, vhca_capture_filter_parse("snaplen=4", &flt));

	Known k;
	const char *names[] = { "port1" };
	vhca_capture_filter_parse("mads", &flt);
	VhcaCapture *c = vhca_capture_open("build/unit/capture-mads.pcapng",
					   &flt, names, 1);
	ASSERT_NE(nullptr, c);
	unsigned n = 0;
	for (const VhcaWireFrame &f : k.frames)
		n += vhca_capture_frame(c, 0, true, &f, 2048);
	EXPECT_EQ(3u, n);                       // the SMP, the SA MAD, the REQ
	uint64_t written, filtered;
	vhca_capture_stats(c, &written, &filtered);
	EXPECT_EQ(3u, written);
	EXPECT_EQ(3u + 1 + 1 + 2 + 1 + 1 + 1, filtered);   // the rest
	vhca_capture_close(c);
}

bool HaveTshark()
{
	return access("/usr/bin/tshark", X_OK) == 0;
}

std::vector<std::map<std::string, std::string>>
Fields(const std::vector<std::string> &names, const char *file = kFile)
{
	std::string cmd = std::string("tshark -r ") + file +
			  " -T fields -E separator=/t -E occurrence=f";
	for (const std::string &n : names)
		cmd += " -e " + n;
	cmd += " 2>/dev/null";
	std::vector<std::map<std::string, std::string>> rows;
	FILE *p = popen(cmd.c_str(), "r");
	char line[4096];
	while (p && fgets(line, sizeof(line), p)) {
		std::map<std::string, std::string> row;
		char *save = nullptr, *s = line;
		line[strcspn(line, "\n")] = 0;
		for (const std::string &n : names) {
			char *tab = strchr(s, '\t');
			if (tab)
				*tab = 0;
			row[n] = s;
			s = tab ? tab + 1 : s + strlen(s);
		}
		(void)save;
		rows.push_back(row);
	}
	if (p)
		pclose(p);
	return rows;
}

TEST(Capture, TsharkDecodesKnownPackets)
{
	if (!HaveTshark())
		GTEST_SKIP() << "no /usr/bin/tshark (scripts/deps.sh installs it)";
	Known k;
	VhcaCaptureFilter flt;
	const char *names[] = { "port1" };
	vhca_capture_filter_all(&flt);
	VhcaCapture *c = vhca_capture_open(kFile, &flt, names, 1);
	ASSERT_NE(nullptr, c);
	for (const VhcaWireFrame &f : k.frames)
		vhca_capture_frame(c, 0, f.kind == VHCA_WIRE_REQUEST, &f, 2048);
	vhca_capture_close(c);

	// CRCs recomputed with zlib, every frame erf:infiniband, no malformed
	// packet and no expert warning.
	std::string check = std::string("python3 selftests/capture/capcheck.py ") + kFile;
	EXPECT_EQ(0, system(check.c_str()));

	auto rows = Fields({ "infiniband.bth.opcode", "infiniband.bth.psn",
			     "infiniband.reth.dmalen", "infiniband.aeth.syndrome",
			     "infiniband.deth.srcqp", "infiniband.mad.mgmtclass",
			     "infiniband.mad.attributeid", "infiniband.cm.req",
			     "infiniband.grh.ipver", "infiniband.immdt" });
	std::vector<std::string> ops, psns;
	for (auto &r : rows) {
		ops.push_back(r["infiniband.bth.opcode"]);
		psns.push_back(r["infiniband.bth.psn"]);
	}
	// SEND First/Middle/Last, WRITE Only, READ Request, READ Response
	// First/Last, ACK, UD SEND Only with Immediate, 3 MADs, RNR NAK.
	std::vector<std::string> want_ops = { "0", "1", "2", "10", "12", "13", "15",
					      "17", "101", "100", "100", "100", "17" };
	EXPECT_EQ(want_ops, ops);
	std::vector<std::string> want_psns = { "100", "101", "102", "103", "104", "104",
					       "105", "102", "0", "0", "0", "0", "105" };
	EXPECT_EQ(want_psns, psns);
	ASSERT_EQ(13u, rows.size());
	EXPECT_EQ("100", rows[3]["infiniband.reth.dmalen"]);
	EXPECT_EQ("3000", rows[4]["infiniband.reth.dmalen"]);
	EXPECT_EQ("31", rows[7]["infiniband.aeth.syndrome"]);
	EXPECT_EQ("46", rows[12]["infiniband.aeth.syndrome"]);   // RNR, timer 14
	EXPECT_EQ("0x00000021", rows[8]["infiniband.deth.srcqp"]);
	EXPECT_EQ("44332211", rows[8]["infiniband.immdt"]);      // as the guest wrote it
	EXPECT_EQ("6", rows[8]["infiniband.grh.ipver"]);
	EXPECT_EQ("0x01", rows[9]["infiniband.mad.mgmtclass"]);
	EXPECT_EQ("0x0011", rows[9]["infiniband.mad.attributeid"]);
	EXPECT_EQ("0x03", rows[10]["infiniband.mad.mgmtclass"]);
	EXPECT_EQ("0x0035", rows[10]["infiniband.mad.attributeid"]);
	EXPECT_EQ("0x07", rows[11]["infiniband.mad.mgmtclass"]);
	EXPECT_NE("", rows[11]["infiniband.cm.req"]);
}

// FLUSH (IBA 1.5 A19.4.1): the request is BTH, FETH, RETH without payload
// (opcode 0x1C; the RETH's DMA length is the range's, not the frame's
// message length), the answer an RDMA READ Response Only without payload
// (oA19-2); byte by byte, then as tshark decodes them.
TEST(Capture, FlushRequestAndResponse)
{
	VhcaWireFrame req = Rc(VHCA_WIRE_REQUEST, VHCA_WQE_FLUSH, 200, 0, 1);
	req.remote_addr = 0x7f0000003000ull;
	req.rkey = 0x5678;
	req.compare_add = 4096;
	req.swap = VHCA_FETH(VHCA_FLUSH_PERSISTENT, VHCA_FLUSH_MR);
	VhcaWireFrame resp = Rc(VHCA_WIRE_RESPONSE, VHCA_WQE_FLUSH, 200, 0, 1);
	uint8_t pkt[VHCA_CAPTURE_MAX_PACKET];
	unsigned first, mtu;

	ASSERT_EQ(1u, vhca_capture_packets(&req, 4096, &first, &mtu));
	size_t len = vhca_capture_packet(&req, 4096, 0, pkt);
	EXPECT_EQ(8 + 12 + 4 + 16 + 4 + 2u, len);
	EXPECT_EQ(0x1c, pkt[8]);                                 // RC FLUSH
	EXPECT_EQ(0x80000000u | 200, Be32(pkt + 16));            // AckReq
	EXPECT_EQ(0x12u, Be32(pkt + 20));                        // FETH: SEL 1, PLT 2
	EXPECT_EQ(0x7f00u, Be32(pkt + 24));                      // RETH VA
	EXPECT_EQ(0x3000u, Be32(pkt + 28));
	EXPECT_EQ(0x5678u, Be32(pkt + 32));                      // R_Key
	EXPECT_EQ(4096u, Be32(pkt + 36));                        // DMA length
	ASSERT_EQ(1u, vhca_capture_packets(&resp, 4096, &first, &mtu));
	len = vhca_capture_packet(&resp, 4096, 0, pkt);
	EXPECT_EQ(8 + 12 + 4 + 4 + 2u, len);
	EXPECT_EQ(0x10, pkt[8]);                                 // READ Response Only
	EXPECT_EQ(200u, Be32(pkt + 16) & 0xffffff);
	EXPECT_EQ(0x1f, pkt[20]);                                // AETH: ACK

	if (!HaveTshark())
		GTEST_SKIP() << "no /usr/bin/tshark (scripts/deps.sh installs it)";
	const char file[] = "build/unit/capture-flush.pcapng";
	VhcaCaptureFilter flt;
	const char *names[] = { "port1" };
	vhca_capture_filter_all(&flt);
	VhcaCapture *c = vhca_capture_open(file, &flt, names, 1);
	ASSERT_NE(nullptr, c);
	vhca_capture_frame(c, 0, true, &req, 4096);
	vhca_capture_frame(c, 0, false, &resp, 4096);
	vhca_capture_close(c);
	std::string check = std::string("python3 selftests/capture/capcheck.py ") + file;
	EXPECT_EQ(0, system(check.c_str()));
	auto rows = Fields({ "infiniband.bth.opcode", "infiniband.bth.psn",
			     "infiniband.aeth.syndrome" }, file);
	ASSERT_EQ(2u, rows.size());
	EXPECT_EQ("28", rows[0]["infiniband.bth.opcode"]);
	EXPECT_EQ("200", rows[0]["infiniband.bth.psn"]);
	EXPECT_EQ("16", rows[1]["infiniband.bth.opcode"]);
	EXPECT_EQ("31", rows[1]["infiniband.aeth.syndrome"]);
}

// The checker finds what it is there to find: a flipped payload byte is an
// ICRC and VCRC finding.
TEST(Capture, CheckerFindsBadCrc)
{
	if (!HaveTshark())
		GTEST_SKIP() << "no /usr/bin/tshark (scripts/deps.sh installs it)";
	const char *bad = "build/unit/capture-bad.pcapng";
	VhcaCaptureFilter flt;
	const char *names[] = { "port1" };
	vhca_capture_filter_all(&flt);
	VhcaCapture *c = vhca_capture_open(bad, &flt, names, 1);
	ASSERT_NE(nullptr, c);
	Known k;
	vhca_capture_frame(c, 0, true, &k.frames[1], 2048);
	vhca_capture_close(c);
	FILE *f = fopen(bad, "r+b");
	ASSERT_NE(nullptr, f);
	fseek(f, -40, SEEK_END);        // inside the WRITE's payload
	int ch = fgetc(f);
	fseek(f, -40, SEEK_END);
	fputc(ch ^ 0xff, f);
	fclose(f);
	std::string check = std::string("python3 selftests/capture/capcheck.py ") +
			    bad + " >/dev/null";
	EXPECT_NE(0, system(check.c_str()));
}

}  // namespace
