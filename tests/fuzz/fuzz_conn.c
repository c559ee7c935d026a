/* fuzz_conn.c — see fuzz_conn.h. */
#include "fuzz_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "target/iscsi/pdu.h"

static void write_all(int fd, const uint8_t *p, size_t left)
{
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w <= 0)
			abort(); /* the buffer was sized to hold any accepted input */
		p += w;
		left -= (size_t)w;
	}
}

int fuzz_conn_stream(const uint8_t *prefix, size_t prefix_len, const uint8_t *data, size_t len,
		     int *peer)
{
	int sv[2];
	int sz = 512 * 1024;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		abort();
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	write_all(sv[1], prefix, prefix_len);
	write_all(sv[1], data, len);
	shutdown(sv[1], SHUT_WR);
	*peer = sv[1];
	return sv[0];
}

void fuzz_conn_paused_peer_gone(struct conn *c)
{
	if (!c->rx_paused || c->closed)
		return;
	if (bhs_opcode(c->bhs) != ISCSI_OP_SCSI_CMD ||
	    c->data_bytes + get_be32(c->bhs + 20) <= CONN_MAX_DATA_BYTES) {
		fprintf(stderr, "fuzz: reading paused within the data budget\n");
		abort(); /* it would never resume */
	}
	conn_close(c, "connection lost while reading was paused");
}
