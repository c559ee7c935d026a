/* listener.c — listen, accept, tune each socket, hand it round-robin to an
 * I/O thread. */
#include "target/iscsi/listener.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "target/iscsi/io_thread.h"
#include "target/iscsi/target.h"

#define SOCKBUF_WANT (4 << 20)

static int read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

int listener_open(const char *spec)
{
	char host[256], port[16] = "3260";
	struct addrinfo hints, *res = NULL, *ai;
	const char *colon;
	int fd = -1, one = 1, rc;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end || (size_t)(end - spec - 1) >= sizeof(host)) {
			fprintf(stderr, "lunlab-target: --listen %s: bad IPv6 address\n", spec);
			return -1;
		}
		memcpy(host, spec + 1, (size_t)(end - spec - 1));
		host[end - spec - 1] = '\0';
		colon = end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = strrchr(spec, ':');
		size_t hl = colon ? (size_t)(colon - spec) : strlen(spec);
		if (hl >= sizeof(host)) {
			fprintf(stderr, "lunlab-target: --listen %s: address too long\n", spec);
			return -1;
		}
		memcpy(host, spec, hl);
		host[hl] = '\0';
	}
	if (colon) {
		if (strlen(colon + 1) == 0 || strlen(colon + 1) >= sizeof(port)) {
			fprintf(stderr, "lunlab-target: --listen %s: bad port\n", spec);
			return -1;
		}
		strcpy(port, colon + 1);
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc) {
		fprintf(stderr, "lunlab-target: --listen %s: %s\n", spec, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1024) == 0)
			break;
		fprintf(stderr, "lunlab-target: --listen %s: %s\n", spec, strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

bool listener_portal(int lfd, struct target_portal *p)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(p, 0, sizeof(*p));
	if (getsockname(lfd, (struct sockaddr *)&ss, &sl) < 0)
		return false;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)&ss;
		inet_ntop(AF_INET, &a->sin_addr, p->host, sizeof(p->host));
		p->port = ntohs(a->sin_port);
		p->wildcard = a->sin_addr.s_addr == htonl(INADDR_ANY);
		return true;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)&ss;
		inet_ntop(AF_INET6, &a->sin6_addr, p->host, sizeof(p->host));
		p->port = ntohs(a->sin6_port);
		p->v6 = true;
		p->wildcard = IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr);
		return true;
	}
	return false;
}

static void tune(int fd)
{
	static int big_ok = -1;
	int one = 1, sz = SOCKBUF_WANT;

	int idle = 30, intvl = 10, cnt = 3;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* a vanished initiator (no FIN, no RST) must not hold its session
	 * forever: TCP keepalive finds it within ~1 minute, no NOP-In timers */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	/* a fixed buffer size turns Linux's autotuning off: only set it when the
	 * system allows at least as much as we ask for */
	if (big_ok < 0)
		big_ok = read_sysctl("/proc/sys/net/core/wmem_max") >= SOCKBUF_WANT &&
			 read_sysctl("/proc/sys/net/core/rmem_max") >= SOCKBUF_WANT;
	if (big_ok) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
}

void listener_accept_all(int lfd)
{
	listener_accept_portal(lfd, -1, 0);
}

void listener_accept_portal(int lfd, int portal, unsigned portal_gen)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN, or EMFILE: try again on the next wake-up */
		}
		tune(fd);
		io_threads_assign(fd, portal, portal_gen);
	}
}
