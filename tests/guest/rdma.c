// SPDX-License-Identifier: GPL-2.0
/*
 * rdma: arrivals on a registered verbs completion channel
 * (COSCHED_HOOK_RDMA_CQ), over soft-RoCE (rdma_rxe).  rdma.sh sets up the
 * device (rdma link add over a veth) and runs this; without an RDMA
 * device the whole test is skipped with the reason.
 *
 * Two RC QPs of one process are connected to each other through the
 * device's own RoCEv2 (IPv4) GID.  The receiver's CQ has a completion
 * channel; the sender's has none.
 *
 * - Bad input: a pipe, a TCP socket, the context's async event file and
 *   its command file as RDMA_CQ (EINVAL), the channel as TCP (ENOTSOCK)
 *   and as io_uring (EINVAL), double registration (EEXIST), UNREGISTER
 *   twice (0, then ENOENT).
 * - Without registration, a receiver blocked in WAIT while a SEND
 *   completes on its armed CQ times out (ETIMEDOUT), although the channel
 *   has the event; with builtin_hooks=0 (BPF hooks attached: they cover
 *   TCP data and io_uring only) a registered channel still announces it.
 * - Registered: each of -n SENDs, posted 1-3 ms after the receiver
 *   blocked in WAIT (after arming the CQ), wakes it (WAIT returns 0) and
 *   the completion is in the CQ; prints the post-to-WAIT-return latency,
 *   then the post-to-return latency of the same receiver blocked in
 *   poll() on the channel instead (no cosched: the baseline).
 *
 * usage: rdma [-n samples]
 */
#define _GNU_SOURCE
#include "check.h"

#include <fcntl.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define JOB	0x4d3aull
#define PARAM	"/sys/module/cosched/parameters/builtin_hooks"
#define MAXN	10000

struct verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_comp_channel *ch;
	struct ibv_cq *rcq, *scq;
	struct ibv_qp *rqp, *sqp;
	union ibv_gid gid;
	int gidx;
	char buf[2][64];	/* [0] receive, [1] send */
};

static struct verbs v;

static int reg(int efd, int fd, u32 kind, unsigned long cmd)
{
	struct cosched_hook_reg r = { .fd = fd, .kind = kind };

	return ioctl(efd, cmd, &r) ? -errno : 0;
}

static int wait_retry(int fd, u64 seen, u64 timeout_ns)
{
	int r, tries = 0;

	while ((r = ep_wait(fd, seen, timeout_ns)) == -EINTR && ++tries < 100)
		;
	return r;
}

static void param_set(const char *val)
{
	int fd = open(PARAM, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		bail("%s: %s", PARAM, strerror(errno));
	close(fd);
}

static void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

/* The first IPv4-mapped GID of port 1 (RoCEv2 over the veth's address). */
static int find_gid(void)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(v.ctx, 1, &pa))
		return -1;
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

		if (ibv_query_gid(v.ctx, 1, i, &v.gid))
			break;
		if (!memcmp(v.gid.raw, v4, sizeof(v4))) {
			v.gidx = i;
			return 0;
		}
	}
	return -1;
}

static int qp_connect(struct ibv_qp *qp, u32 dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = v.gid;
	a.ah_attr.grh.sgid_index = v.gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct ibv_qp *qp_create(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(v.pd, &ia);
}

/* Everything up to two connected QPs, or skip with the reason. */
static void verbs_setup(void)
{
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	if (!list || n < 1)
		skip_all("no RDMA device (ibv_get_device_list found none; rdma.sh sets up soft-RoCE)");
	v.ctx = ibv_open_device(list[0]);
	if (!v.ctx)
		bail("ibv_open_device %s: %s", ibv_get_device_name(list[0]),
		     strerror(errno));
	t_diag("device %s", ibv_get_device_name(list[0]));
	ibv_free_device_list(list);
	if (find_gid())
		skip_all("the RDMA device has no IPv4 (RoCEv2) GID on port 1");
	v.pd = ibv_alloc_pd(v.ctx);
	v.mr = v.pd ? ibv_reg_mr(v.pd, v.buf, sizeof(v.buf),
				 IBV_ACCESS_LOCAL_WRITE) : NULL;
	v.ch = ibv_create_comp_channel(v.ctx);
	v.rcq = v.ch ? ibv_create_cq(v.ctx, 16, NULL, v.ch, 0) : NULL;
	v.scq = ibv_create_cq(v.ctx, 16, NULL, NULL, 0);
	if (!v.mr || !v.rcq || !v.scq)
		bail("pd/mr/channel/cq: %s", strerror(errno));
	v.rqp = qp_create(v.rcq);
	v.sqp = qp_create(v.scq);
	if (!v.rqp || !v.sqp)
		bail("ibv_create_qp: %s", strerror(errno));
	if (qp_connect(v.rqp, v.sqp->qp_num) || qp_connect(v.sqp, v.rqp->qp_num))
		bail("ibv_modify_qp: %s", strerror(errno));
	t_diag("QPs %u <-> %u over GID index %d", v.rqp->qp_num, v.sqp->qp_num,
	       v.gidx);
}

static void post_recv(void)
{
	struct ibv_sge sge = { (uintptr_t)v.buf[0], sizeof(v.buf[0]), v.mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(v.rqp, &wr, &bad))
		bail("ibv_post_recv");
}

/* Post one SEND and reap its completion (the sender's CQ, no channel). */
static int send_one(void)
{
	struct ibv_sge sge = { (uintptr_t)v.buf[1], 8, v.mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	u64 deadline = now_ns() + 3000000000ull;
	int n;

	if (ibv_post_send(v.sqp, &wr, &bad))
		return -1;
	while (!(n = ibv_poll_cq(v.scq, 1, &wc)) && now_ns() < deadline)
		sleep_ns(50000);
	return n == 1 && wc.status == IBV_WC_SUCCESS ? 0 : -1;
}

/*
 * Take the channel's event and the receive completion.  Returns 0, or -1
 * if no event is pending within ms (the CQ stays armed then).
 */
static int take_completion(int ms)
{
	struct pollfd pfd = { .fd = v.ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *cq_ctx;
	int n;

	if (poll(&pfd, 1, ms) != 1 || ibv_get_cq_event(v.ch, &cq, &cq_ctx))
		return -1;
	ibv_ack_cq_events(cq, 1);
	n = ibv_poll_cq(v.rcq, 1, &wc);
	if (n != 1 || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV)
		bail("receive completion: n %d status %d", n, n ? wc.status : 0);
	return 0;
}

static void test_bad_input(void)
{
	struct ep ep;
	int p[2], s = socket(AF_INET, SOCK_STREAM, 0);
	const unsigned long R = COSCHED_IOC_REGISTER, U = COSCHED_IOC_UNREGISTER;

	ep_must_open(&ep, JOB, 0);
	if (pipe(p) || s < 0)
		bail("pipe/socket: %s", strerror(errno));
	expect_neg(reg(ep.fd, p[0], COSCHED_HOOK_RDMA_CQ, R), EINVAL,
		   "a pipe as RDMA_CQ: EINVAL");
	expect_neg(reg(ep.fd, s, COSCHED_HOOK_RDMA_CQ, R), EINVAL,
		   "a TCP socket as RDMA_CQ: EINVAL");
	expect_neg(reg(ep.fd, v.ctx->async_fd, COSCHED_HOOK_RDMA_CQ, R), EINVAL,
		   "the async event file ([infinibandevent] too) as RDMA_CQ: EINVAL");
	expect_neg(reg(ep.fd, v.ctx->cmd_fd, COSCHED_HOOK_RDMA_CQ, R), EINVAL,
		   "the uverbs command file as RDMA_CQ: EINVAL");
	expect_neg(reg(ep.fd, v.ch->fd, COSCHED_HOOK_TCP, R), ENOTSOCK,
		   "the channel as TCP: ENOTSOCK");
	expect_neg(reg(ep.fd, v.ch->fd, COSCHED_HOOK_IO_URING, R), EINVAL,
		   "the channel as io_uring: EINVAL");
	expect_neg(reg(ep.fd, v.ch->fd, COSCHED_HOOK_RDMA_CQ, R), 0,
		   "the completion channel as RDMA_CQ: registered");
	expect_neg(reg(ep.fd, v.ch->fd, COSCHED_HOOK_RDMA_CQ, R), EEXIST,
		   "registered twice: EEXIST");
	expect_neg(reg(ep.fd, v.ch->fd, COSCHED_HOOK_RDMA_CQ, U), 0,
		   "UNREGISTER");
	expect_neg(reg(ep.fd, v.ch->fd, COSCHED_HOOK_RDMA_CQ, U), ENOENT,
		   "UNREGISTER again: ENOENT");
	close(p[0]);
	close(p[1]);
	close(s);
	ep_close(&ep);
}

/*
 * Not registered: nothing wakes.  Registered with builtin_hooks=0: the
 * built-in path still reports, since no BPF hook sees verbs channels.
 */
static void test_silent(void)
{
	struct ep ep;
	u64 seen, t0;
	int r;

	ep_must_open(&ep, JOB, 0);
	post_recv();
	if (ibv_req_notify_cq(v.rcq, 0))
		bail("ibv_req_notify_cq");
	seen = RD(ep.ctrl->arrivals);
	t0 = now_ns();
	/* The sender runs in this thread: post first, then block. */
	if (send_one())
		bail("SEND failed");
	r = wait_retry(ep.fd, seen, 500000000ull);
	expect_neg(r, ETIMEDOUT, "not registered: WAIT times out despite a completion");
	t_diag("WAIT returned after %.0f ms", (now_ns() - t0) / 1e6);
	ok(take_completion(2000) == 0, "... and the channel has the event");

	expect_neg(reg(ep.fd, v.ch->fd, COSCHED_HOOK_RDMA_CQ,
		       COSCHED_IOC_REGISTER), 0, "REGISTER the channel");
	param_set("0");
	post_recv();
	ibv_req_notify_cq(v.rcq, 0);
	seen = RD(ep.ctrl->arrivals);
	if (send_one())
		bail("SEND failed");
	ok(take_completion(2000) == 0, "builtin_hooks=0: the event comes");
	ok(poll_until(RD(ep.ctrl->arrivals) != seen, 2000),
	   "builtin_hooks=0: the channel still announces it");
	param_set("1");
	ep_close(&ep);	/* drops the registration */
}

static struct {
	u64 t_send[MAXN];
	u64 armed;	/* receiver -> sender: samples armed */
	int n, err;
} sh;

static void *sender_thread(void *arg)
{
	(void)arg;
	pin_cpu(1);
	for (int i = 0; i < sh.n; i++) {
		u64 deadline = now_ns() + 3000000000ull;

		while (RD(sh.armed) <= (u64)i && now_ns() < deadline)
			sleep_ns(100000);
		sleep_ns(1000000 + rnd(2000001));
		WR(sh.t_send[i], now_ns());
		if (send_one()) {
			WR(sh.err, 1);
			break;
		}
	}
	return NULL;
}

/* The same receiver blocked in poll() on the channel, without cosched. */
static int poll_channel(void)
{
	struct pollfd pfd = { .fd = v.ch->fd, .events = POLLIN };

	return poll(&pfd, 1, 3000) == 1 ? 0 : -ETIMEDOUT;
}

static void test_wakes(int n, bool by_poll)
{
	static u64 lat[MAXN];
	int woken = 0, early = 0, r = 0;
	pthread_t th;
	struct ep ep;

	ep_must_open(&ep, JOB, 0);
	if (!by_poll)
		expect_neg(reg(ep.fd, v.ch->fd, COSCHED_HOOK_RDMA_CQ,
			       COSCHED_IOC_REGISTER), 0,
			   "REGISTER the completion channel");
	sh.n = n;
	WR(sh.armed, 0);
	memset(sh.t_send, 0, sizeof(sh.t_send));
	pin_cpu(0);
	if (pthread_create(&th, NULL, sender_thread, NULL))
		bail("pthread_create");
	for (int i = 0; i < n; i++) {
		u64 seen = RD(ep.ctrl->arrivals);

		post_recv();
		if (ibv_req_notify_cq(v.rcq, 0))
			bail("ibv_req_notify_cq");
		WR(sh.armed, (u64)i + 1);
		r = by_poll ? poll_channel() : wait_retry(ep.fd, seen, 3000000000ull);
		if (r) {
			okf(0, by_poll ? "poll() woken" : "every SEND completion wakes WAIT",
			    "sample %d: %s%s",
			    i, strerror(-r), RD(sh.err) ? " (SEND failed)" : "");
			break;
		}
		u64 t = now_ns(), ts = RD(sh.t_send[i]);

		if (ts && t >= ts)
			lat[woken++] = t - ts;
		else
			early++;
		if (take_completion(2000)) {
			okf(0, "the completion is there once woken", "sample %d", i);
			r = -1;
			break;
		}
		WR(ep.ctrl->consumed, RD(ep.ctrl->arrivals));
	}
	pthread_join(th, NULL);
	if (!r)
		ok(1, by_poll ? "poll() on the channel woken by every SEND (baseline)" :
		   "every SEND completion wakes WAIT, the CQE is there");
	expect_eq(early, 0, "no wake-up before its SEND was posted");
	if (woken) {
		u64 m = percentile(lat, woken, 50), p9 = percentile(lat, woken, 90);

		printf("rdma-wake: path=%s n=%d median_us=%.1f p90_us=%.1f min_us=%.1f max_us=%.1f\n",
		       by_poll ? "poll" : "hook", woken, m / 1e3, p9 / 1e3,
		       lat[0] / 1e3,
		       lat[woken - 1] / 1e3);
	}
	ep_close(&ep);
}

int main(int argc, char **argv)
{
	int n = 25, opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: rdma [-n samples]\n");
			return 2;
		}
		n = atoi(optarg);
	}
	if (n < 1 || n > MAXN)
		n = MAXN;
	verbs_setup();
	test_bad_input();
	test_silent();
	test_wakes(n, false);
	test_wakes(n, true);
	ibv_destroy_qp(v.rqp);
	ibv_destroy_qp(v.sqp);
	ibv_destroy_cq(v.rcq);
	ibv_destroy_cq(v.scq);
	ibv_destroy_comp_channel(v.ch);
	ibv_dereg_mr(v.mr);
	ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	return t_done();
}
