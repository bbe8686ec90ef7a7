/*
 * The part of libuv's stable 1.x ABI that vsock.c uses, declared here so the addon builds from
 * Node-API headers alone: the npm package node-api-headers has no uv.h, and Node binaries from npm
 * or version managers ship no headers at all. Node exports these functions to addons.
 *
 * Handles stay opaque: allocated with uv_handle_size(), their data pointer reached through
 * uv_handle_get_data()/uv_handle_set_data() (libuv >= 1.19; Node 20 ships 1.46), never through
 * struct fields, so no struct layout is assumed. The constants are libuv's own (uv.h), which the
 * 1.x series keeps fixed.
 */
#ifndef AGENTD_UV_STABLE_H
#define AGENTD_UV_STABLE_H

#include <stddef.h>

typedef struct uv_loop_s uv_loop_t;
typedef struct uv_handle_s uv_handle_t;
typedef struct uv_poll_s uv_poll_t;

/* uv_handle_type: UV_POLL is the 8th entry of UV_HANDLE_TYPE_MAP after UV_UNKNOWN_HANDLE (0). */
typedef enum { UV_UNKNOWN_HANDLE = 0, UV_POLL = 8 } uv_handle_type;

/* uv_poll_event */
enum { UV_READABLE = 1, UV_WRITABLE = 2 };

typedef void (*uv_poll_cb)(uv_poll_t *handle, int status, int events);
typedef void (*uv_close_cb)(uv_handle_t *handle);

size_t uv_handle_size(uv_handle_type type);
void *uv_handle_get_data(const uv_handle_t *handle);
void uv_handle_set_data(uv_handle_t *handle, void *data);
int uv_poll_init_socket(uv_loop_t *loop, uv_poll_t *handle, int socket);
int uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb);
int uv_poll_stop(uv_poll_t *handle);
void uv_close(uv_handle_t *handle, uv_close_cb close_cb);
void uv_ref(uv_handle_t *handle);
void uv_unref(uv_handle_t *handle);
const char *uv_err_name(int err);
const char *uv_strerror(int err);

#endif
