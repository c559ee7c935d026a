/* loopback_target.c — see loopback_target.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include <cmocka.h>

#include "loopback_target.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/listener.h"

static int lfd = -1;
static atomic_int stop_accept;
static pthread_t acceptor;

static void *accept_loop(void *arg)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	(void)arg;
	while (!stop_accept)
		if (poll(&p, 1, 100) > 0)
			listener_accept_all(lfd);
	return NULL;
}

unsigned loopback_target_start(unsigned io_threads)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);

	lfd = listener_open("127.0.0.1:0");
	assert_true(lfd >= 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
	assert_int_equal(io_threads_start((int)io_threads), 0);
	stop_accept = 0;
	assert_int_equal(pthread_create(&acceptor, NULL, accept_loop, NULL), 0);
	return ntohs(a.sin_port);
}

void loopback_target_stop(void)
{
	stop_accept = 1;
	pthread_join(acceptor, NULL);
	close(lfd);
	lfd = -1;
	io_threads_stop();
}

void fd_write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);
		assert_true(w > 0);
		p += w;
		n -= (size_t)w;
	}
}

void fd_read_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);
		assert_true(r > 0);
		p += r;
		n -= (size_t)r;
	}
}
