// Host unit test of the fault rule engine (fabric/vhca-fault-rules.c):
// parsing and its errors, matching on each field, nth/count/pct, the
// message numbers, each action's verdict, the frame summary, and that the
// same seed and the same messages give the same trace.
//
// SPDX-License-Identifier: GPL-2.0-or-later

#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

extern "C" {
#include "vhca-fault-rules.h"
}

namespace {

struct Rules {
	std::unique_ptr<VhcaFaultRules> r{new VhcaFaultRules};
	explicit Rules(uint64_t seed = 1) { vhca_fault_rules_init(r.get(), seed); }
	VhcaFaultRules *operator->() { return r.get(); }
	VhcaFaultRules *get() { return r.get(); }
	// The error of adding text, "" when it was added.
	std::string Add(const char *text)
	{
		const char *why = vhca_fault_rule_add(r.get(), text, nullptr);
		return why ? why : "";
	}
	VhcaFaultAction Judge(const VhcaFaultPkt &p, uint32_t *arg = nullptr)
	{
		uint32_t a = 0;
		VhcaFaultAction act = vhca_fault_rules_judge(r.get(), &p, &a);
		if (arg)
			*arg = a;
		return act;
	}
	std::string Trace()
	{
		std::string s(vhca_fault_rules_trace(r.get(), nullptr, 0) + 1, '\0');
		vhca_fault_rules_trace(r.get(), &s[0], s.size());
		s.resize(s.size() - 1);
		return s;
	}
	std::string List()
	{
		std::string s(vhca_fault_rules_list(r.get(), nullptr, 0) + 1, '\0');
		vhca_fault_rules_list(r.get(), &s[0], s.size());
		s.resize(s.size() - 1);
		return s;
	}
};

VhcaFaultPkt Pkt(uint8_t op, uint32_t qpn = 0x12, uint32_t psn = 0,
		 uint8_t port = 1, bool out = true)
{
	VhcaFaultPkt p;
	memset(&p, 0, sizeof(p));
	p.port = port;
	p.outbound = out;
	p.op = op;
	p.slid = 2;
	p.dlid = 3;
	p.qpn = qpn;
	p.psn = psn;
	p.length = 4096;
	return p;
}

TEST(FaultRules, NoRulesPass)
{
	Rules r;
	EXPECT_FALSE(vhca_fault_rules_active(r.get()));
	EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(Pkt(VHCA_FAULT_OP_SEND)));
	EXPECT_EQ(0u, r->trace_seq);
}

TEST(FaultRules, BadInputIsRefusedWithReason)
{
	Rules r;
	struct {
		const char *text, *why;
	} bad[] = {
		{ "op=send", "no action=" },
		{ "action=explode", "unknown action" },
		{ "action=drop,colour=red", "unknown term 'colour=red'" },
		{ "action=drop,port", "not KEY=VALUE" },
		{ "action=drop,port=256", "out of range" },
		{ "action=drop,qpn=0x1000000", "out of range" },
		{ "action=drop,psn=-1", "out of range" },
		{ "action=drop,pct=101", "out of range" },
		{ "action=drop,dir=sideways", "dir is in or out" },
		{ "action=drop,op=teleport", "op is send" },
		{ "action=drop,action=dup", "one action per rule" },
		{ "action=nak:rnr", "needs op=ack or op=read-resp" },
		{ "action=nak:bogus,op=ack", "nak takes rnr, seq or access" },
		{ "action=delay", "1..60000" },
		{ "action=delay:0", "1..60000" },
		{ "action=flap:60001", "1..60000" },
		{ "action=drop:5", "takes no argument" },
		{ "action=drop,nth=0", "start at 1" },
		{ "action=drop,op=send,mad-class=7", "need op=mad" },
	};
	for (auto &b : bad) {
		std::string why = r.Add(b.text);
		EXPECT_NE(std::string::npos, why.find(b.why))
			<< b.text << " -> " << why;
	}
	EXPECT_EQ(0u, r->nrules);
	EXPECT_NE(nullptr, vhca_fault_rules_command(r.get(), "frobnicate"));
	EXPECT_NE(nullptr, vhca_fault_rules_command(r.get(), "del x"));
	EXPECT_NE(nullptr, vhca_fault_rules_command(r.get(), "del 9"));
	EXPECT_NE(nullptr, vhca_fault_rules_command(r.get(), "seed -3"));
	std::string longer(200, 'x');
	EXPECT_NE("", r.Add(longer.c_str()));
}

TEST(FaultRules, MatchesEachField)
{
	struct {
		const char *rule;
		VhcaFaultPkt hit, miss;
	} cases[] = {
		{ "port=2,action=drop", Pkt(1, 1, 0, 2), Pkt(1, 1, 0, 1) },
		{ "dir=in,action=drop", Pkt(1, 1, 0, 1, false), Pkt(1, 1, 0, 1, true) },
		{ "qpn=0x12,action=drop", Pkt(1, 0x12), Pkt(1, 0x13) },
		{ "psn=7,action=drop", Pkt(1, 1, 7), Pkt(1, 1, 8) },
		{ "op=read-resp,action=drop", Pkt(VHCA_FAULT_OP_READ_RESP),
		  Pkt(VHCA_FAULT_OP_READ_REQ) },
		{ "op=atomic,action=drop", Pkt(VHCA_FAULT_OP_ATOMIC),
		  Pkt(VHCA_FAULT_OP_ACK) },
	};
	for (auto &c : cases) {
		Rules r;
		ASSERT_EQ("", r.Add(c.rule));
		EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(c.miss)) << c.rule;
		EXPECT_EQ(VHCA_FAULT_DROP, r.Judge(c.hit)) << c.rule;
	}
	Rules r;
	ASSERT_EQ("", r.Add("slid=2,dlid=3,action=drop"));
	VhcaFaultPkt p = Pkt(VHCA_FAULT_OP_SEND);
	p.dlid = 4;
	EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(p));
	p.dlid = 3;
	EXPECT_EQ(VHCA_FAULT_DROP, r.Judge(p));
}

TEST(FaultRules, MadClassAndAttribute)
{
	Rules r;
	// CM (class 0x07) ConnectReply (attribute 0x0013), IBA 12.6
	ASSERT_EQ("", r.Add("mad-class=0x07,mad-attr=0x0013,action=drop"));
	VhcaFaultPkt req = Pkt(VHCA_FAULT_OP_MAD, 1);
	req.mad_class = 0x07;
	req.mad_attr = 0x0010;
	VhcaFaultPkt rep = req;
	rep.mad_attr = 0x0013;
	EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(req));
	EXPECT_EQ(VHCA_FAULT_DROP, r.Judge(rep));
	EXPECT_NE(std::string::npos, r.Trace().find("mad-class 0x07 mad-attr 0x0013"));
}

TEST(FaultRules, NthAndCount)
{
	Rules r;
	ASSERT_EQ("", r.Add("op=send,nth=3,action=drop"));
	std::vector<int> fired;
	for (int i = 1; i <= 6; i++)
		if (r.Judge(Pkt(VHCA_FAULT_OP_SEND)) == VHCA_FAULT_DROP)
			fired.push_back(i);
	EXPECT_EQ(std::vector<int>({ 3 }), fired);

	Rules burst;
	ASSERT_EQ("", burst.Add("op=ack,nth=2,count=3,action=nak:rnr"));
	fired.clear();
	uint32_t arg = 0;
	for (int i = 1; i <= 8; i++)
		if (burst.Judge(Pkt(VHCA_FAULT_OP_ACK), &arg) == VHCA_FAULT_NAK) {
			fired.push_back(i);
			EXPECT_EQ((uint32_t)VHCA_WIRE_NAK_RNR, arg);
		}
	EXPECT_EQ(std::vector<int>({ 2, 3, 4 }), fired);

	Rules every;
	ASSERT_EQ("", every.Add("op=write,action=dup"));
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(VHCA_FAULT_DUP, every.Judge(Pkt(VHCA_FAULT_OP_WRITE)));
	EXPECT_NE(std::string::npos, every.List().find("matches 5 fired 5: op=write,action=dup"));
}

TEST(FaultRules, MessageNumberPerQp)
{
	Rules r;
	ASSERT_EQ("", r.Add("qpn=5,msg=2,action=drop"));
	EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(Pkt(VHCA_FAULT_OP_SEND, 5)));
	EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(Pkt(VHCA_FAULT_OP_SEND, 6)));  // own count
	EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(Pkt(VHCA_FAULT_OP_SEND, 5, 0, 1, false)));
	EXPECT_EQ(VHCA_FAULT_DROP, r.Judge(Pkt(VHCA_FAULT_OP_SEND, 5)));
	EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(Pkt(VHCA_FAULT_OP_SEND, 5)));
	EXPECT_NE(std::string::npos, r.Trace().find("msg 2"));
}

TEST(FaultRules, EachActionAndItsArgument)
{
	struct {
		const char *rule;
		uint8_t op;
		VhcaFaultAction act;
		uint32_t arg;
		const char *traced;
	} cases[] = {
		{ "action=drop", VHCA_FAULT_OP_SEND, VHCA_FAULT_DROP, 0, " drop port" },
		{ "action=dup", VHCA_FAULT_OP_SEND, VHCA_FAULT_DUP, 0, " dup port" },
		{ "action=reorder", VHCA_FAULT_OP_SEND, VHCA_FAULT_REORDER, 0, " reorder port" },
		{ "action=corrupt", VHCA_FAULT_OP_SEND, VHCA_FAULT_CORRUPT, 0, " corrupt port" },
		{ "action=delay:250", VHCA_FAULT_OP_SEND, VHCA_FAULT_DELAY, 250, " delay:250 " },
		{ "action=flap:1500", VHCA_FAULT_OP_SEND, VHCA_FAULT_FLAP, 1500, " flap:1500 " },
		{ "op=ack,action=nak:rnr", VHCA_FAULT_OP_ACK, VHCA_FAULT_NAK,
		  VHCA_WIRE_NAK_RNR, " nak:rnr " },
		{ "op=ack,action=nak:seq", VHCA_FAULT_OP_ACK, VHCA_FAULT_NAK,
		  VHCA_WIRE_NAK_SEQ, " nak:seq " },
		{ "op=read-resp,action=nak:access", VHCA_FAULT_OP_READ_RESP,
		  VHCA_FAULT_NAK, VHCA_WIRE_NAK_REM_ACCESS, " nak:access " },
	};
	for (auto &c : cases) {
		Rules r;
		uint32_t arg = 99;
		ASSERT_EQ("", r.Add(c.rule)) << c.rule;
		EXPECT_EQ(c.act, r.Judge(Pkt(c.op, 0x12, 0x2a), &arg)) << c.rule;
		EXPECT_EQ(c.arg, arg) << c.rule;
		std::string t = r.Trace();
		EXPECT_NE(std::string::npos, t.find(std::string("0 rule 1") + c.traced))
			<< c.rule << "\n" << t;
		EXPECT_NE(std::string::npos, t.find("qpn 0x12 psn 0x2a")) << t;
	}
}

TEST(FaultRules, LowestIdActsOthersCount)
{
	Rules r;
	ASSERT_EQ("", r.Add("op=send,action=dup"));
	ASSERT_EQ("", r.Add("qpn=0x12,action=drop"));
	EXPECT_EQ(VHCA_FAULT_DUP, r.Judge(Pkt(VHCA_FAULT_OP_SEND)));
	EXPECT_EQ(VHCA_FAULT_DROP, r.Judge(Pkt(VHCA_FAULT_OP_WRITE)));
	ASSERT_EQ(nullptr, vhca_fault_rules_command(r.get(), "del 1"));
	EXPECT_EQ(VHCA_FAULT_DROP, r.Judge(Pkt(VHCA_FAULT_OP_SEND)));
	std::string list = r.List();
	EXPECT_EQ(std::string::npos, list.find("rule 1 "));
	EXPECT_NE(std::string::npos, list.find("rule 2 matches 3 fired 2"));
	ASSERT_EQ(nullptr, vhca_fault_rules_command(r.get(), "clear"));
	EXPECT_EQ(VHCA_FAULT_PASS, r.Judge(Pkt(VHCA_FAULT_OP_SEND)));
	ASSERT_EQ(nullptr, vhca_fault_rules_command(r.get(), "add action=drop"));
	EXPECT_NE(std::string::npos, r.List().find("rule 3 matches 0 fired 0: action=drop"));
}

TEST(FaultRules, AtMostMaxRules)
{
	Rules r;
	for (int i = 0; i < VHCA_FAULT_MAX_RULES; i++)
		ASSERT_EQ("", r.Add("action=drop"));
	EXPECT_NE(std::string::npos, r.Add("action=drop").find("at most"));
}

// The same seed and messages: the same verdicts and the same trace; another
// seed: other verdicts.  pct is the rules' one random choice.
std::string RunSeeded(uint64_t seed)
{
	Rules r(seed);
	EXPECT_EQ("", r.Add("op=send,pct=30,action=drop"));
	EXPECT_EQ("", r.Add("op=ack,pct=10,count=4,action=nak:rnr"));
	for (uint32_t i = 0; i < 400; i++) {
		r.Judge(Pkt(VHCA_FAULT_OP_SEND, 0x40 + i % 3, i));
		r.Judge(Pkt(VHCA_FAULT_OP_ACK, 0x50, i, 1, false));
	}
	return r.Trace();
}

TEST(FaultRules, SeedDeterminism)
{
	std::string a = RunSeeded(0x1234), b = RunSeeded(0x1234), c = RunSeeded(0x99);
	EXPECT_EQ(a, b);
	EXPECT_NE(a, c);
	EXPECT_EQ(0u, a.find("seed 0x0000000000001234 faults "));
	// about 30 % of 400 dropped, exactly 4 RNR NAKs
	size_t drops = 0, naks = 0;
	for (size_t at = 0; (at = a.find(" drop ", at)) != std::string::npos; at++)
		drops++;
	for (size_t at = 0; (at = a.find(" nak:rnr ", at)) != std::string::npos; at++)
		naks++;
	EXPECT_GT(drops, 80u);
	EXPECT_LT(drops, 160u);
	EXPECT_EQ(4u, naks);

	// seed N again restarts the same sequence on the same rules
	Rules r(7);
	ASSERT_EQ("", r.Add("pct=50,action=drop"));
	std::vector<int> first, second;
	for (int i = 0; i < 64; i++)
		first.push_back(r.Judge(Pkt(VHCA_FAULT_OP_SEND)));
	ASSERT_EQ(nullptr, vhca_fault_rules_command(r.get(), "seed 7"));
	for (int i = 0; i < 64; i++)
		second.push_back(r.Judge(Pkt(VHCA_FAULT_OP_SEND)));
	EXPECT_EQ(first, second);
}

TEST(FaultRules, TraceKeepsTheNewest)
{
	Rules r;
	ASSERT_EQ("", r.Add("action=drop"));
	for (uint32_t i = 0; i < VHCA_FAULT_TRACE_LEN + 5; i++)
		r.Judge(Pkt(VHCA_FAULT_OP_SEND, 1, i & 0xffffff));
	std::string t = r.Trace();
	EXPECT_EQ(std::string::npos, t.find("\n4 rule 1"));
	EXPECT_NE(std::string::npos, t.find("\n5 rule 1"));
	EXPECT_NE(std::string::npos, t.find("faults 1029\n"));
	char small[16];
	EXPECT_EQ(t.size(), vhca_fault_rules_trace(r.get(), small, sizeof(small)));
	EXPECT_EQ(15u, strlen(small));
}

TEST(FaultRules, FrameSummary)
{
	uint8_t mad[256] = {};
	VhcaWireFrame f;
	VhcaFaultPkt p;

	memset(&f, 0, sizeof(f));
	f.kind = VHCA_WIRE_RESPONSE;
	f.opcode = VHCA_WQE_RDMA_READ;
	f.syndrome = VHCA_WIRE_ACK;
	f.slid = 4;
	f.dlid = 5;
	f.dst_qpn = 0x33;
	f.psn = 0x1000007;     // 24 bits on the wire
	vhca_fault_pkt_from_frame(&f, 2, false, &p);
	EXPECT_EQ(VHCA_FAULT_OP_READ_RESP, p.op);
	EXPECT_EQ(2, p.port);
	EXPECT_FALSE(p.outbound);
	EXPECT_EQ(7u, p.psn);
	f.syndrome = VHCA_WIRE_NAK_SEQ;
	vhca_fault_pkt_from_frame(&f, 2, false, &p);
	EXPECT_EQ(VHCA_FAULT_OP_ACK, p.op);
	f.kind = VHCA_WIRE_REQUEST;
	f.opcode = VHCA_WQE_ATOMIC_FETCH_AND_ADD;
	vhca_fault_pkt_from_frame(&f, 1, true, &p);
	EXPECT_EQ(VHCA_FAULT_OP_ATOMIC, p.op);
	f.kind = VHCA_WIRE_DATAGRAM;
	f.dst_qpn = 1;
	mad[1] = 0x07;
	mad[16] = 0x00;
	mad[17] = 0x13;
	f.payload = mad;
	f.payload_len = sizeof(mad);
	vhca_fault_pkt_from_frame(&f, 1, true, &p);
	EXPECT_EQ(VHCA_FAULT_OP_MAD, p.op);
	EXPECT_EQ(0x07, p.mad_class);
	EXPECT_EQ(0x13, p.mad_attr);
	f.dst_qpn = 0x80;
	vhca_fault_pkt_from_frame(&f, 1, true, &p);
	EXPECT_EQ(VHCA_FAULT_OP_SEND, p.op);
}

}  // namespace

// op= of each request opcode, as Documentation/fabric-tests.md "Fault
// rules" names them (the op is derived from the opcode table's row).
TEST(FaultRules, OpOfEachOpcode)
{
	const struct { uint8_t opcode; VhcaFaultOp op; } cases[] = {
		{ VHCA_WQE_SEND, VHCA_FAULT_OP_SEND },
		{ VHCA_WQE_SEND_WITH_IMM, VHCA_FAULT_OP_SEND },
		{ VHCA_WQE_SEND_WITH_INV, VHCA_FAULT_OP_SEND },
		{ VHCA_WQE_RDMA_WRITE, VHCA_FAULT_OP_WRITE },
		{ VHCA_WQE_RDMA_WRITE_WITH_IMM, VHCA_FAULT_OP_WRITE },
		{ VHCA_WQE_RDMA_READ, VHCA_FAULT_OP_READ_REQ },
		{ VHCA_WQE_ATOMIC_CMP_AND_SWP, VHCA_FAULT_OP_ATOMIC },
		{ VHCA_WQE_ATOMIC_FETCH_AND_ADD, VHCA_FAULT_OP_ATOMIC },
		{ VHCA_WQE_ATOMIC_WRITE, VHCA_FAULT_OP_ATOMIC },
		{ VHCA_WQE_FLUSH, VHCA_FAULT_OP_ANY },
		{ VHCA_WQE_LOCAL_INV, VHCA_FAULT_OP_ANY },
		{ VHCA_WQE_REG_MR, VHCA_FAULT_OP_ANY },
		{ VHCA_WQE_BIND_MW, VHCA_FAULT_OP_ANY },
		{ 0xff, VHCA_FAULT_OP_ANY },
	};
	for (const auto &c : cases)
		EXPECT_EQ(c.op, vhca_fault_op_of_wqe(c.opcode)) << int(c.opcode);
}
