// SPDX-License-Identifier: GPL-2.0
/*
 * hub - the cluster harness's Ethernet switch (tests/vm/cluster.sh).
 *
 * Each guest's NIC is a QEMU "-netdev dgram" whose local end is the unix
 * datagram socket DIR/nodeI.sock and whose remote end is DIR/hub.sock,
 * bound here: one datagram is one Ethernet frame.  The hub learns which
 * port each source MAC address came from, sends a unicast frame to the
 * port of its destination when known and floods the others (broadcast,
 * multicast, unknown) to every port but the sender's.  Unix sockets in a
 * private directory: no frame can reach any host interface.  A frame
 * for a port that is not there yet (its guest still booting) is dropped.
 * A port whose queue is full (the kernel queues only 10 datagrams for a
 * unix socket, net.unix.max_dgram_qlen) makes the hub wait, up to 200 ms,
 * then drop: waiting pushes back to the sending QEMU and so to the guest's
 * TCP, while a dropped frame would cost a retransmission timeout (200 ms
 * and more) and spoil any latency measured across the switch.  The hub
 * exits when its stdin reaches end of file (cluster.sh holds the other
 * end of that pipe), so it never outlives the run.
 *
 *   hub DIR NODES        (prints how many frames it switched and dropped at exit)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_NODES	256

static struct sockaddr_un port[MAX_NODES];
static unsigned char mac[MAX_NODES][6];
static int mac_known[MAX_NODES];

static int port_of(const struct sockaddr_un *from, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(from->sun_path, port[i].sun_path))
			return i;
	return -1;
}

static int port_of_mac(const unsigned char *m, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (mac_known[i] && !memcmp(mac[i], m, 6))
			return i;
	return -1;
}

static void set_addr(struct sockaddr_un *a, const char *dir, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (snprintf(a->sun_path, sizeof(a->sun_path), "%s/%s", dir, name) >=
	    (int)sizeof(a->sun_path)) {
		fprintf(stderr, "hub: path too long: %s/%s\n", dir, name);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static unsigned char frame[65536];
	unsigned long frames = 0, dropped = 0, absent = 0;
	struct timeval wait = { .tv_usec = 200000 };
	struct sockaddr_un self, from;
	struct pollfd pfd[2];
	int n, i, fd, src, dst;
	char name[32];

	if (argc != 3 || (n = atoi(argv[2])) < 1 || n > MAX_NODES) {
		fprintf(stderr, "usage: hub DIR NODES (1..%d)\n", MAX_NODES);
		return 2;
	}
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "node%d.sock", i);
		set_addr(&port[i], argv[1], name);
	}
	set_addr(&self, argv[1], "hub.sock");
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&self, sizeof(self))) {
		perror("hub: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait));
	pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = 0, .events = POLLIN };
	for (;;) {
		socklen_t alen = sizeof(from);
		ssize_t len;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("hub: poll");
			return 1;
		}
		/* stdin readable means end of file: cluster.sh has gone */
		if (pfd[1].revents)
			break;
		len = recvfrom(fd, frame, sizeof(frame), MSG_DONTWAIT,
			       (struct sockaddr *)&from, &alen);
		if (len < 14)
			continue;
		src = port_of(&from, n);
		if (src < 0)
			continue;
		frames++;
		/* learn the sender's MAC (bytes 6..11) unless it is multicast */
		if (!(frame[6] & 1)) {
			memcpy(mac[src], frame + 6, 6);
			mac_known[src] = 1;
		}
		dst = (frame[0] & 1) ? -1 : port_of_mac(frame, n);
		for (i = 0; i < n; i++) {
			if (i == src || (dst >= 0 && i != dst))
				continue;
			if (sendto(fd, frame, len, 0,
				   (struct sockaddr *)&port[i], sizeof(port[i])) < 0) {
				if (errno == ENOENT || errno == ECONNREFUSED)
					absent++;
				else
					dropped++;
			}
		}
	}
	fprintf(stderr, "hub: %lu frames, %lu dropped (%lu more for guests not up)\n",
		frames, dropped, absent);
	unlink(self.sun_path);
	return 0;
}
