/* loopback_probe.c - a TCP stream through 127.0.0.1 inside this process (loopback_probe.h).
 * One thread: a non-blocking sender and receiver served by one poll(2) loop, like the
 * bench's own sessions, so the probe costs this host what an iSCSI transfer would. */
#include "client/loopback_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/conn.h"

bool portal_is_loopback(const char *portal)
{
	if (!portal)
		return false;
	if (!strncmp(portal, "127.", 4) || !strncmp(portal, "localhost", 9))
		return true;
	return !strncmp(portal, "[::1]", 5) || !strcmp(portal, "::1");
}

static int nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

double loopback_tcp_mb_s(double seconds)
{
	int ls = -1, tx = -1, rx = -1;
	double result = -1;
	size_t chunk = 1u << 20;
	uint8_t *buf = malloc(chunk), *sink = malloc(chunk);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	if (!buf || !sink)
		goto out;
	memset(buf, 0xa5, chunk);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&a, &alen))
		goto out;
	tx = socket(AF_INET, SOCK_STREAM, 0);
	if (tx < 0 || connect(tx, (struct sockaddr *)&a, sizeof(a)))
		goto out;
	rx = accept(ls, NULL, NULL);
	if (rx < 0 || nonblock(tx) || nonblock(rx))
		goto out;
	uint64_t got = 0, measured0 = 0;
	double t0 = now_s(), tm = 0;
	size_t off = 0;
	for (;;) {
		double el = now_s() - t0;
		if (!tm && el >= seconds * 0.2) { /* after a short warm-up */
			tm = now_s();
			measured0 = got;
		}
		if (el >= seconds)
			break;
		struct pollfd p[2] = { { .fd = tx, .events = POLLOUT }, { .fd = rx, .events = POLLIN } };
		if (poll(p, 2, 1000) < 0 && errno != EINTR)
			goto out;
		if (p[0].revents & POLLOUT) {
			ssize_t w = send(tx, buf + off, chunk - off, MSG_NOSIGNAL);
			if (w > 0)
				off = (off + (size_t)w) % chunk;
			else if (w < 0 && errno != EAGAIN && errno != EINTR)
				goto out;
		}
		if (p[1].revents & POLLIN) {
			ssize_t r = recv(rx, sink, chunk, 0);
			if (r > 0)
				got += (uint64_t)r;
			else if (r == 0 || (errno != EAGAIN && errno != EINTR))
				goto out;
		}
	}
	if (tm && now_s() > tm)
		result = (double)(got - measured0) / (now_s() - tm) / 1e6;
out:
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	if (ls >= 0)
		close(ls);
	free(buf);
	free(sink);
	return result;
}
