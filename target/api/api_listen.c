/* api_listen.c — see api_listen.h. */
#include "target/api/api_listen.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

const char *api_listen_split(const char *s, char *host, size_t hostlen, unsigned *port)
{
	const char *p, *hs = s;
	size_t hl;
	char *end;
	unsigned long v;

	for (const char *c = s; *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
			return "no spaces or control characters";
	if (s[0] == '[') {
		const char *e = strchr(s, ']');
		if (!e || e[1] != ':')
			return "want [IPv6]:PORT";
		hs = s + 1;
		hl = (size_t)(e - hs);
		p = e + 2;
	} else if ((p = strrchr(s, ':'))) {
		if (memchr(s, ':', (size_t)(p - s)))
			return "an IPv6 address goes in [brackets]: [ADDR]:PORT";
		hl = (size_t)(p - s);
		p++;
	} else {
		hs = API_DEFAULT_ADDR;
		hl = strlen(hs);
		p = s;
	}
	if (hl == 0 || hl >= hostlen)
		return "want ADDR:PORT (or PORT: 127.0.0.1)";
	if (*p < '0' || *p > '9' || strlen(p) > 5)
		return "port: want a number 0..65535";
	v = strtoul(p, &end, 10);
	if (*end || v > 65535)
		return "port: want a number 0..65535";
	memcpy(host, hs, hl);
	host[hl] = '\0';
	*port = (unsigned)v;
	return NULL;
}

const char *api_listen_check(const char *listen)
{
	char host[256];
	unsigned port;
	unsigned char a[16];
	const char *why = api_listen_split(listen, host, sizeof(host), &port);

	if (why)
		return why;
	if (inet_pton(AF_INET, host, a) != 1 && inet_pton(AF_INET6, host, a) != 1)
		return "not a numeric IPv4 or IPv6 address";
	return NULL;
}
