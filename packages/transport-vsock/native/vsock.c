/*
 * agentd_vsock: non-blocking AF_VSOCK sockets for Node, with readiness from uv_poll.
 *
 * Node cannot wrap an AF_VSOCK descriptor (net.Socket rejects the fd type), so this addon does
 * the few system calls Node cannot: socket/bind/listen/accept/connect/recv/send/shutdown/close,
 * and the local-CID ioctl. Every descriptor is O_NONBLOCK, so no call here ever blocks the
 * event loop; readiness comes from a uv_poll handle on the loop's own thread (no threads, no
 * locks). The JS side (src/vsock-socket.ts) builds a stream.Duplex on top.
 *
 * AF_UNIX is accepted too, for one reason: it lets the test suite drive this exact code end to
 * end on machines where vsock cannot connect to itself.
 *
 * Only Node-API (version 8) and libuv's stable v1 ABI are used, so one build loads on every
 * Node >= 20. libuv is reached through uv-stable.h (opaque handles), so Node-API headers suffice.
 */
#define _GNU_SOURCE /* accept4 */
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>
#include "uv-stable.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#define READ_CHUNK 65536

/* One open socket. Owned by a JS object (napi_wrap); the uv_poll_t lives in its own allocation
 * because libuv frees it asynchronously (uv_close), possibly after the JS object is gone. */
typedef struct {
  napi_env env;
  int fd;
  int family;
  uv_poll_t *poll;           /* NULL until the first poll() */
  napi_ref self;             /* weak, made strong while polling so callbacks have a target */
  int self_strong;
  napi_ref callback;         /* JS fn(status, events) */
  napi_async_context async;  /* so callbacks run with async_hooks context and drain nextTicks */
  int hooked;                /* env cleanup hook registered */
  int in_callback;           /* inside on_poll: JS-side release waits until it returns */
  int unref;                 /* unref() was called: applied when the poll handle exists */
} sock_t;

/* Per-env state (the addon may load in several worker threads). */
typedef struct {
  napi_ref handle_ctor;
  char scratch[READ_CHUNK];
} addon_t;

/* ---------- small helpers ---------- */

/* A failed Node-API call becomes a JS exception (unless one is already pending), never a silent
 * undefined. */
static napi_value napi_failed(napi_env env) {
  const napi_extended_error_info *info = NULL;
  napi_get_last_error_info(env, &info); /* first: later calls overwrite it */
  const char *message = info != NULL && info->error_message != NULL ? info->error_message : "Node-API call failed";
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && !pending) napi_throw_error(env, "ERR_VSOCK_NAPI", message);
  return NULL;
}

#define CHECK(call)                                  \
  do {                                               \
    if ((call) != napi_ok) return napi_failed(env);  \
  } while (0)

/* Throws an Error shaped like Node's errno errors: message "<syscall> <CODE>: <text>",
 * code "ECONNRESET", errno -104, syscall "recv". */
static napi_value throw_errno(napi_env env, const char *syscall, int err) {
  const char *name = uv_err_name(-err);
  const char *text = uv_strerror(-err);
  char message[256];
  snprintf(message, sizeof message, "%s %s: %s", syscall, name, text);
  napi_value code, msg, error, value;
  if (napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code) != napi_ok) return NULL;
  if (napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg) != napi_ok) return NULL;
  if (napi_create_error(env, code, msg, &error) != napi_ok) return NULL;
  if (napi_create_int32(env, -err, &value) == napi_ok) napi_set_named_property(env, error, "errno", value);
  if (napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &value) == napi_ok)
    napi_set_named_property(env, error, "syscall", value);
  napi_throw(env, error);
  return NULL;
}

static napi_value throw_type(napi_env env, const char *message) {
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return NULL;
}

static int get_uint32_prop(napi_env env, napi_value obj, const char *key, uint32_t *out) {
  napi_value v;
  napi_valuetype t;
  if (napi_get_named_property(env, obj, key, &v) != napi_ok) return 0;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_number) return 0;
  return napi_get_value_uint32(env, v, out) == napi_ok;
}

/* Reads {family:'vsock', cid, port} or {family:'unix', path} into a sockaddr. */
static int parse_address(napi_env env, napi_value obj, struct sockaddr_storage *sa, socklen_t *len) {
  napi_value v;
  char family[8] = {0};
  size_t n = 0;
  napi_valuetype type;
  memset(sa, 0, sizeof *sa);
  if (napi_typeof(env, obj, &type) != napi_ok || type != napi_object) {
    throw_type(env, "address must be an object");
    return 0;
  }
  if (napi_get_named_property(env, obj, "family", &v) != napi_ok ||
      napi_get_value_string_utf8(env, v, family, sizeof family, &n) != napi_ok) {
    throw_type(env, "address.family must be 'vsock' or 'unix'");
    return 0;
  }
  if (strcmp(family, "vsock") == 0) {
    struct sockaddr_vm *vm = (struct sockaddr_vm *)sa;
    vm->svm_family = AF_VSOCK;
    if (!get_uint32_prop(env, obj, "cid", &vm->svm_cid) || !get_uint32_prop(env, obj, "port", &vm->svm_port)) {
      throw_type(env, "address.cid and address.port must be uint32 numbers");
      return 0;
    }
    *len = sizeof *vm;
    return 1;
  }
  if (strcmp(family, "unix") == 0) {
    struct sockaddr_un *un = (struct sockaddr_un *)sa;
    un->sun_family = AF_UNIX;
    if (napi_get_named_property(env, obj, "path", &v) != napi_ok ||
        napi_get_value_string_utf8(env, v, NULL, 0, &n) != napi_ok) {
      throw_type(env, "address.path must be a string");
      return 0;
    }
    if (n == 0) {
      throw_type(env, "address.path must not be empty");
      return 0;
    }
    if (n >= sizeof un->sun_path) {
      throw_errno(env, "address", ENAMETOOLONG);
      return 0;
    }
    napi_get_value_string_utf8(env, v, un->sun_path, sizeof un->sun_path, &n);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
    return 1;
  }
  throw_type(env, "address.family must be 'vsock' or 'unix'");
  return 0;
}

/* {cid, port} for vsock peers, {} for the unix stand-in. */
static napi_value address_object(napi_env env, const struct sockaddr_storage *sa) {
  napi_value obj, v;
  CHECK(napi_create_object(env, &obj));
  if (sa->ss_family == AF_VSOCK) {
    const struct sockaddr_vm *vm = (const struct sockaddr_vm *)sa;
    CHECK(napi_create_uint32(env, vm->svm_cid, &v));
    CHECK(napi_set_named_property(env, obj, "cid", v));
    CHECK(napi_create_uint32(env, vm->svm_port, &v));
    CHECK(napi_set_named_property(env, obj, "port", v));
  }
  return obj;
}

/* ---------- handle lifetime ---------- */

static void on_poll_closed(uv_handle_t *handle) { free(handle); }

static void env_cleanup(void *arg);

/* Stops polling and closes the descriptor; idempotent. Safe without JS (env teardown). */
static void sock_close(sock_t *s) {
  if (s->poll != NULL) {
    uv_poll_stop(s->poll);
    uv_close((uv_handle_t *)s->poll, on_poll_closed);
    s->poll = NULL;
  }
  if (s->fd >= 0) {
    close(s->fd);
    s->fd = -1;
  }
  if (s->hooked) {
    napi_remove_env_cleanup_hook(s->env, env_cleanup, s);
    s->hooked = 0;
  }
}

/* A worker thread or the process is shutting down with this socket still open. */
static void env_cleanup(void *arg) {
  sock_t *s = arg;
  s->hooked = 0; /* the hook is being consumed; do not remove it again */
  sock_close(s);
}

static void set_strong(sock_t *s, int strong) {
  if (strong == s->self_strong) return;
  uint32_t count;
  if (strong)
    napi_reference_ref(s->env, s->self, &count);
  else
    napi_reference_unref(s->env, s->self, &count);
  s->self_strong = strong;
}

/* Releases what only JS may release; called from close() and the finalizer. */
static void sock_release_js(napi_env env, sock_t *s) {
  set_strong(s, 0);
  if (s->callback != NULL) {
    napi_delete_reference(env, s->callback);
    s->callback = NULL;
  }
  if (s->async != NULL) {
    napi_async_destroy(env, s->async);
    s->async = NULL;
  }
}

static void sock_finalize(napi_env env, void *data, void *hint) {
  (void)hint;
  sock_t *s = data;
  sock_close(s); /* a handle dropped without close(): never leak the fd */
  sock_release_js(env, s);
  if (s->self != NULL) napi_delete_reference(env, s->self);
  free(s);
}

static napi_value new_handle(napi_env env, int fd, int family) {
  addon_t *addon;
  napi_value ctor, obj;
  if (napi_get_instance_data(env, (void **)&addon) != napi_ok ||
      napi_get_reference_value(env, addon->handle_ctor, &ctor) != napi_ok ||
      napi_new_instance(env, ctor, 0, NULL, &obj) != napi_ok) {
    close(fd);
    return NULL;
  }
  sock_t *s = calloc(1, sizeof *s);
  if (s == NULL) {
    close(fd);
    return throw_errno(env, "malloc", ENOMEM);
  }
  s->env = env;
  s->fd = fd;
  s->family = family;
  if (napi_wrap(env, obj, s, sock_finalize, NULL, &s->self) != napi_ok) {
    close(fd);
    free(s);
    return NULL;
  }
  return obj;
}

/* Unwraps `this`; throws when the handle is foreign or already closed (unless allow_closed). */
static sock_t *this_sock(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv, int allow_closed) {
  napi_value self;
  sock_t *s = NULL;
  if (napi_get_cb_info(env, info, argc, argv, &self, NULL) != napi_ok) return NULL;
  if (napi_unwrap(env, self, (void **)&s) != napi_ok || s == NULL) {
    throw_type(env, "not a vsock handle");
    return NULL;
  }
  if (!allow_closed && s->fd < 0) {
    throw_errno(env, "closed socket", EBADF);
    return NULL;
  }
  return s;
}

static napi_value undefined(napi_env env) {
  napi_value v;
  napi_get_undefined(env, &v);
  return v;
}

/* ---------- module functions ---------- */

static int open_socket(int family) {
  return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/* listen(address, backlog) -> handle */
static napi_value js_listen(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  struct sockaddr_storage sa;
  socklen_t len;
  int32_t backlog = 511;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1) return throw_type(env, "an address is required");
  if (!parse_address(env, argv[0], &sa, &len)) return NULL;
  if (argc > 1) napi_get_value_int32(env, argv[1], &backlog);
  int fd = open_socket(sa.ss_family);
  if (fd < 0) return throw_errno(env, "socket", errno);
  if (bind(fd, (struct sockaddr *)&sa, len) < 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "bind", err);
  }
  if (listen(fd, backlog) < 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "listen", err);
  }
  return new_handle(env, fd, sa.ss_family);
}

/* connect(address) -> [handle, error?]. Poll writable, then takeError(), to learn how it went.
 * A connect that fails at once (ENODEV for an unreachable CID, ENOENT for a missing path) comes
 * back as the error, so JS reports it the way net.connect does: as an 'error' event. */
static napi_value js_connect(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], handle, error, pair;
  struct sockaddr_storage sa;
  socklen_t len;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1) return throw_type(env, "an address is required");
  if (!parse_address(env, argv[0], &sa, &len)) return NULL;
  int fd = open_socket(sa.ss_family);
  if (fd < 0) return throw_errno(env, "socket", errno);
  int rc;
  do rc = connect(fd, (struct sockaddr *)&sa, len);
  while (rc < 0 && errno == EINTR);
  int err = rc < 0 && errno != EINPROGRESS && errno != EAGAIN ? errno : 0;
  handle = new_handle(env, fd, sa.ss_family);
  if (handle == NULL) return NULL;
  CHECK(napi_get_undefined(env, &error));
  if (err != 0) {
    throw_errno(env, "connect", err);
    CHECK(napi_get_and_clear_last_exception(env, &error));
  }
  CHECK(napi_create_array_with_length(env, 2, &pair));
  CHECK(napi_set_element(env, pair, 0, handle));
  CHECK(napi_set_element(env, pair, 1, error));
  return pair;
}

/* localCid() -> number, from the IOCTL_VM_SOCKETS_GET_LOCAL_CID ioctl on /dev/vsock. */
static napi_value js_local_cid(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  unsigned int cid = 0;
  int fd = open("/dev/vsock", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return throw_errno(env, "open /dev/vsock", errno);
  int rc = ioctl(fd, IOCTL_VM_SOCKETS_GET_LOCAL_CID, &cid);
  int err = errno;
  close(fd);
  if (rc < 0) return throw_errno(env, "ioctl IOCTL_VM_SOCKETS_GET_LOCAL_CID", err);
  CHECK(napi_create_uint32(env, cid, &out));
  return out;
}

/* ---------- handle methods ---------- */

/* accept() -> {handle, cid?, port?} | undefined when no connection is pending. */
static napi_value h_accept(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sock_t *s = this_sock(env, info, &argc, NULL, 0);
  if (s == NULL) return NULL;
  struct sockaddr_storage sa;
  socklen_t len = sizeof sa;
  memset(&sa, 0, sizeof sa);
  int fd;
  do fd = accept4(s->fd, (struct sockaddr *)&sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return undefined(env);
    return throw_errno(env, "accept", errno);
  }
  napi_value handle = new_handle(env, fd, s->family);
  if (handle == NULL) return NULL;
  napi_value result = address_object(env, &sa);
  if (result == NULL) return NULL;
  CHECK(napi_set_named_property(env, result, "handle", handle));
  return result;
}

/* read() -> Buffer with data | null at end of stream | undefined when it would block. */
static napi_value h_read(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sock_t *s = this_sock(env, info, &argc, NULL, 0);
  if (s == NULL) return NULL;
  addon_t *addon;
  CHECK(napi_get_instance_data(env, (void **)&addon));
  ssize_t n;
  do n = recv(s->fd, addon->scratch, READ_CHUNK, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return undefined(env);
    return throw_errno(env, "read", errno);
  }
  napi_value out;
  if (n == 0) {
    CHECK(napi_get_null(env, &out));
    return out;
  }
  CHECK(napi_create_buffer_copy(env, (size_t)n, addon->scratch, NULL, &out));
  return out;
}

/* write(view) -> bytes written (0 when it would block). Never raises SIGPIPE. */
static napi_value h_write(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  sock_t *s = this_sock(env, info, &argc, argv, 0);
  if (s == NULL) return NULL;
  void *data;
  size_t length;
  bool is_buffer;
  if (argc < 1) return throw_type(env, "write() takes a Buffer");
  CHECK(napi_is_buffer(env, argv[0], &is_buffer));
  if (!is_buffer) return throw_type(env, "write() takes a Buffer");
  CHECK(napi_get_buffer_info(env, argv[0], &data, &length));
  ssize_t n;
  do n = send(s->fd, data, length, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) n = 0;
    else return throw_errno(env, "write", errno);
  }
  CHECK(napi_create_int64(env, (int64_t)n, &out));
  return out;
}

/* shutdown(): half-close, our side sends EOF. */
static napi_value h_shutdown(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sock_t *s = this_sock(env, info, &argc, NULL, 0);
  if (s == NULL) return NULL;
  if (shutdown(s->fd, SHUT_WR) < 0 && errno != ENOTCONN) return throw_errno(env, "shutdown", errno);
  return undefined(env);
}

/* takeError(): throws the socket's pending error (SO_ERROR: a failed connect, a reset), if any.
 * libuv reports EPOLLERR to the poll callback as UV_EBADF; this recovers the real reason. */
static napi_value h_take_error(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sock_t *s = this_sock(env, info, &argc, NULL, 0);
  if (s == NULL) return NULL;
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) return throw_errno(env, "getsockopt", errno);
  if (err != 0) return throw_errno(env, "connect", err);
  return undefined(env);
}

/* address() -> {cid, port} of the local end (vsock), {} for unix. */
static napi_value h_address(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sock_t *s = this_sock(env, info, &argc, NULL, 0);
  if (s == NULL) return NULL;
  struct sockaddr_storage sa;
  socklen_t len = sizeof sa;
  memset(&sa, 0, sizeof sa);
  if (getsockname(s->fd, (struct sockaddr *)&sa, &len) < 0) return throw_errno(env, "getsockname", errno);
  return address_object(env, &sa);
}

static void on_poll(uv_poll_t *handle, int status, int events) {
  sock_t *s = uv_handle_get_data((uv_handle_t *)handle);
  napi_env env = s->env;
  napi_handle_scope scope;
  napi_value self, fn, argv[2], result;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  if (napi_get_reference_value(env, s->self, &self) == napi_ok && self != NULL &&
      napi_get_reference_value(env, s->callback, &fn) == napi_ok && fn != NULL) {
    napi_create_int32(env, status, &argv[0]);
    napi_create_int32(env, events, &argv[1]);
    s->in_callback = 1;
    napi_status status_ = napi_make_callback(env, s->async, self, fn, 2, argv, &result);
    s->in_callback = 0;
    if (s->fd < 0) sock_release_js(env, s); /* closed from inside the callback */
    if (status_ == napi_pending_exception) {
      napi_value error;
      napi_get_and_clear_last_exception(env, &error);
      napi_fatal_exception(env, error); /* same as an exception thrown from any Node callback */
    }
  }
  napi_close_handle_scope(env, scope);
}

/* poll(events, callback?): watch for readability (1) and/or writability (2); 0 stops. */
static napi_value h_poll(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], self;
  sock_t *s = NULL;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  if (napi_unwrap(env, self, (void **)&s) != napi_ok || s == NULL) return throw_type(env, "not a vsock handle");
  if (s->fd < 0) return throw_errno(env, "poll", EBADF);
  int32_t events = 0;
  CHECK(napi_get_value_int32(env, argv[0], &events));
  events &= UV_READABLE | UV_WRITABLE;
  if (argc > 1) {
    napi_valuetype t;
    CHECK(napi_typeof(env, argv[1], &t));
    if (t == napi_function) {
      if (s->callback != NULL) napi_delete_reference(env, s->callback);
      CHECK(napi_create_reference(env, argv[1], 1, &s->callback));
    }
  }
  if (events == 0) {
    if (s->poll != NULL) uv_poll_stop(s->poll);
    set_strong(s, 0);
    return undefined(env);
  }
  if (s->callback == NULL) return throw_type(env, "poll() needs a callback");
  if (s->poll == NULL) {
    uv_loop_t *loop;
    CHECK(napi_get_uv_event_loop(env, &loop));
    uv_poll_t *p = calloc(1, uv_handle_size(UV_POLL));
    if (p == NULL) return throw_errno(env, "malloc", ENOMEM);
    int rc = uv_poll_init_socket(loop, p, s->fd);
    if (rc < 0) {
      free(p);
      return throw_errno(env, "uv_poll_init", -rc);
    }
    uv_handle_set_data((uv_handle_t *)p, s);
    s->poll = p;
    if (s->unref) uv_unref((uv_handle_t *)p);
    if (s->async == NULL) {
      napi_value name;
      CHECK(napi_create_string_utf8(env, "VSOCKWRAP", NAPI_AUTO_LENGTH, &name));
      CHECK(napi_async_init(env, self, name, &s->async));
    }
    if (napi_add_env_cleanup_hook(env, env_cleanup, s) == napi_ok) s->hooked = 1;
  }
  int rc = uv_poll_start(s->poll, events, on_poll);
  if (rc < 0) return throw_errno(env, "uv_poll_start", -rc);
  set_strong(s, 1);
  return undefined(env);
}

/* close(): stop polling, close the descriptor; idempotent. */
static napi_value h_close(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sock_t *s = this_sock(env, info, &argc, NULL, 1);
  if (s == NULL) return NULL;
  sock_close(s);
  if (!s->in_callback) sock_release_js(env, s); /* else on_poll releases after the callback */
  return undefined(env);
}

/* ref()/unref(): whether an active poll keeps the process alive (like net.Socket#unref). */
static napi_value set_ref(napi_env env, napi_callback_info info, int ref) {
  size_t argc = 0;
  sock_t *s = this_sock(env, info, &argc, NULL, 1);
  if (s == NULL) return NULL;
  s->unref = !ref;
  if (s->poll != NULL) {
    if (ref) uv_ref((uv_handle_t *)s->poll);
    else uv_unref((uv_handle_t *)s->poll);
  }
  return undefined(env);
}
static napi_value h_ref(napi_env env, napi_callback_info info) { return set_ref(env, info, 1); }
static napi_value h_unref(napi_env env, napi_callback_info info) { return set_ref(env, info, 0); }

/* fd getter, for diagnostics and leak tests; -1 once closed. */
static napi_value h_fd(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  sock_t *s = this_sock(env, info, &argc, NULL, 1);
  if (s == NULL) return NULL;
  napi_value out;
  CHECK(napi_create_int32(env, s->fd, &out));
  return out;
}

/* Handles are only made by listen/connect/accept; `new` from JS yields an inert object. */
static napi_value handle_ctor(napi_env env, napi_callback_info info) {
  napi_value self;
  CHECK(napi_get_cb_info(env, info, NULL, NULL, &self, NULL));
  return self;
}

static void addon_finalize(napi_env env, void *data, void *hint) {
  (void)hint;
  addon_t *addon = data;
  napi_delete_reference(env, addon->handle_ctor);
  free(addon);
}

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
      {"accept", NULL, h_accept, NULL, NULL, NULL, napi_default, NULL},
      {"read", NULL, h_read, NULL, NULL, NULL, napi_default, NULL},
      {"write", NULL, h_write, NULL, NULL, NULL, napi_default, NULL},
      {"shutdown", NULL, h_shutdown, NULL, NULL, NULL, napi_default, NULL},
      {"takeError", NULL, h_take_error, NULL, NULL, NULL, napi_default, NULL},
      {"address", NULL, h_address, NULL, NULL, NULL, napi_default, NULL},
      {"poll", NULL, h_poll, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, h_close, NULL, NULL, NULL, napi_default, NULL},
      {"ref", NULL, h_ref, NULL, NULL, NULL, napi_default, NULL},
      {"unref", NULL, h_unref, NULL, NULL, NULL, napi_default, NULL},
      {"fd", NULL, NULL, h_fd, NULL, NULL, napi_default, NULL},
  };
  napi_value ctor;
  CHECK(napi_define_class(env, "VsockHandle", NAPI_AUTO_LENGTH, handle_ctor, NULL,
                          sizeof methods / sizeof methods[0], methods, &ctor));
  addon_t *addon = calloc(1, sizeof *addon);
  if (addon == NULL) return NULL;
  if (napi_create_reference(env, ctor, 1, &addon->handle_ctor) != napi_ok ||
      napi_set_instance_data(env, addon, addon_finalize, NULL) != napi_ok) {
    free(addon);
    return NULL;
  }
  napi_property_descriptor functions[] = {
      {"listen", NULL, js_listen, NULL, NULL, NULL, napi_enumerable, NULL},
      {"connect", NULL, js_connect, NULL, NULL, NULL, napi_enumerable, NULL},
      {"localCid", NULL, js_local_cid, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof functions / sizeof functions[0], functions));
  return exports;
}
