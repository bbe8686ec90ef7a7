{
  "targets": [
    {
      "target_name": "agentd_vsock",
      "sources": ["native/vsock.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Werror=implicit-function-declaration", "-fvisibility=hidden"]
    }
  ]
}
