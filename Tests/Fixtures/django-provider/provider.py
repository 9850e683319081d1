#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""django-oauth-toolkit (PyPI, pinned in scripts/bootstrap) as a real OAuth 2.0 / OpenID Connect provider for the
end-to-end tests: a throwaway SQLite database and an RSA key made at first use, served on 127.0.0.1.

The provider is django-oauth-toolkit's own views, unmodified, with the settings a deployment would choose (OIDC on,
RS256 ID tokens, PKCE required, rotating refresh tokens, RP-initiated logout on). What a deployment writes itself is
here too: a login page (Django's LoginView with a small template), the claims it puts in ID tokens, and, with
--device, the device endpoint advertised in discovery (django-oauth-toolkit serves the endpoint but leaves it out
of its metadata; likewise, with --registration, its open dynamic client registration endpoint). Every request is written as one JSON line to DIR/requests.jsonl: method, path, the names of the
query and form fields, the posted `username` and `redirect_uri` (never a password, code or token), the scheme of the
Authorization header and the status.

Usage (DIR holds the database, the key and the log):
  provider.py serve --dir DIR [--device] [--localhost-loopback] [--registration]
      prints "listening http://127.0.0.1:PORT" on stdout once it answers; the issuer is that URL + "/o"
  provider.py user --dir DIR --username U --password P [--name N] [--email E] [--group G ...]
      prints the user it added
  provider.py app --dir DIR --client-id ID [--secret S] [--grant code|device] [--skip-authorization]
                  [--redirect-uri URI ...] [--post-logout-redirect-uri URI ...] [--algorithm RS256|HS256|none]
      without --secret the client is public; with it, confidential; prints the client it added
  provider.py approve-device --dir DIR --user-code CODE --username U [--deny]
  provider.py records --dir DIR
      one JSON object: grants, access_tokens, refresh_tokens, id_tokens, device_grants, applications
"""
import argparse
import json
import os
import secrets
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
# Django imports this file again under this name (sys.path[0] is its folder) for the URLs, middleware and validator.
MODULE = "provider"


def configure(folder, base_url="http://127.0.0.1", device=False, localhost_loopback=False, registration=False,
              end_session=True):
    import django
    from django.conf import settings

    key_path = os.path.join(folder, "oidc-key.pem")
    if not os.path.exists(key_path):
        from jwcrypto import jwk

        pem = jwk.JWK.generate(kty="RSA", size=2048).export_to_pem(private_key=True, password=None)
        with open(os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
            handle.write(pem)
    with open(key_path) as handle:
        private_key = handle.read()
    secret_path = os.path.join(folder, "django-secret")
    if not os.path.exists(secret_path):
        with open(os.open(secret_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
            handle.write(secrets.token_urlsafe(48))
    with open(secret_path) as handle:
        secret_key = handle.read()

    settings.configure(
        DEBUG=False,
        SECRET_KEY=secret_key,
        ALLOWED_HOSTS=["127.0.0.1", "localhost", "[::1]"],
        ROOT_URLCONF=MODULE,
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "oauth2_provider",
        ],
        MIDDLEWARE=[
            MODULE + ".RequestLog",
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
        ],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(folder, "db.sqlite3")}},
        TEMPLATES=[
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "DIRS": [os.path.join(HERE, "templates")],
                "APP_DIRS": True,
                "OPTIONS": {
                    "context_processors": [
                        "django.template.context_processors.request",
                        "django.contrib.auth.context_processors.auth",
                    ]
                },
            }
        ],
        LOGIN_URL="/accounts/login/",
        USE_TZ=True,
        DEFAULT_AUTO_FIELD="django.db.models.AutoField",
        PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher"],
        # The provider's own errors (a 500's traceback) go to stderr, which the harness keeps in serve.log.
        LOGGING={"version": 1, "disable_existing_loggers": False,
                 "handlers": {"stderr": {"class": "logging.StreamHandler"}},
                 "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR"}}},
        OAUTH2_PROVIDER={
            "OIDC_ENABLED": True,
            "OIDC_RSA_PRIVATE_KEY": private_key,
            "OIDC_RP_INITIATED_LOGOUT_ENABLED": end_session,
            "PKCE_REQUIRED": True,
            "ROTATE_REFRESH_TOKEN": True,
            "ALLOW_LOCALHOST_LOOPBACK": localhost_loopback,
            "SCOPES": {
                "openid": "OpenID Connect",
                "profile": "Your name and user name",
                "email": "Your e-mail address",
                "read": "Read access",
            },
            "DEFAULT_SCOPES": ["read"],
            "OAUTH2_VALIDATOR_CLASS": MODULE + ".ClaimsValidator",
            "OAUTH_DEVICE_VERIFICATION_URI": base_url + "/o/device/",
            "DEVICE_FLOW_INTERVAL": 1,
            "DCR_ENABLED": registration,
            "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
        },
    )
    settings.PROVIDER_DEVICE_IN_DISCOVERY = device
    settings.PROVIDER_REGISTRATION_IN_DISCOVERY = registration
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def make_urls():
    from django.contrib.auth import views as auth_views
    from django.urls import include, path, re_path
    from oauth2_provider import views as oauth_views

    class Discovery(oauth_views.ConnectDiscoveryInfoView):
        def get(self, request, *args, **kwargs):
            response = super().get(request, *args, **kwargs)
            from django.conf import settings

            data = json.loads(response.content)
            # RFC 7009 revocation is served at o/revoke_token/, but DOT's OpenID discovery does not name it.
            data["revocation_endpoint"] = request.build_absolute_uri("/o/revoke_token/")
            if settings.PROVIDER_REGISTRATION_IN_DISCOVERY:
                data["registration_endpoint"] = request.build_absolute_uri("/o/register/")
            if settings.PROVIDER_DEVICE_IN_DISCOVERY:
                data["device_authorization_endpoint"] = request.build_absolute_uri("/o/device-authorization/")
                data["grant_types_supported"] = [
                    "authorization_code",
                    "refresh_token",
                    "urn:ietf:params:oauth:grant-type:device_code",
                ]
            response.content = json.dumps(data).encode()
            response["Content-Length"] = str(len(response.content))
            return response

    return [
        re_path(r"^o/\.well-known/openid-configuration/?$", Discovery.as_view()),
        path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
        path("accounts/login/", auth_views.LoginView.as_view(template_name="login.html"), name="login"),
    ]


class RequestLog:
    """Writes one JSON line per request: never a value but the posted user name."""

    lock = threading.Lock()

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.conf import settings

        fields = sorted(request.POST.keys()) if request.method == "POST" else []
        username = request.POST.get("username") if request.method == "POST" else None
        redirect_uri = request.POST.get("redirect_uri") or request.GET.get("redirect_uri")
        response = self.get_response(request)
        entry = {
            "method": request.method,
            "path": request.path,
            "query": sorted(request.GET.keys()),
            "form": fields,
            "username": username,
            "status": response.status_code,
            "authorization": request.META.get("HTTP_AUTHORIZATION", "").split(" ")[0],
            "redirect_uri": redirect_uri,
        }
        if response.status_code in (301, 302, 303, 307, 308):
            entry["location_path"] = response.get("Location", "").split("?")[0]
        with self.lock, open(settings.PROVIDER_LOG, "a") as handle:
            handle.write(json.dumps(entry) + "\n")
        return response


def claims_validator():
    from oauth2_provider.oauth2_validators import OAuth2Validator

    class ClaimsValidator(OAuth2Validator):
        # DOT releases only the claims this maps to a granted scope: the custom ones go with "profile".
        oidc_claim_scope = {**OAuth2Validator.oidc_claim_scope, "groups": "profile", "roles": "profile"}

        def get_additional_claims(self, request):
            user = request.user
            claims = {"preferred_username": user.username}
            name = user.get_full_name()
            if name:
                claims["name"] = name
            if user.email:
                claims["email"] = user.email
            # Custom claims, as deployments add them: a list and a nested object.
            groups = sorted(group.name for group in user.groups.all())
            if groups:
                claims["groups"] = groups
                claims["roles"] = {"staff": user.is_staff, "groups": len(groups)}
            return claims

    return ClaimsValidator


def serve(arguments):
    import socketserver
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    class Server(socketserver.ThreadingMixIn, WSGIServer):
        daemon_threads = True

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    # Bind first: the device verification URI needs the port.
    from django.core.handlers.wsgi import WSGIHandler

    application = _LazyApplication()
    server = make_server("127.0.0.1", 0, application, server_class=Server, handler_class=QuietHandler)
    port = server.server_address[1]
    base_url = "http://127.0.0.1:%d" % port
    configure(arguments.dir, base_url, device=arguments.device, localhost_loopback=arguments.localhost_loopback,
              registration=arguments.registration, end_session=not arguments.no_end_session)
    from django.conf import settings

    settings.PROVIDER_LOG = os.path.join(arguments.dir, "requests.jsonl")
    application.handler = WSGIHandler()
    print("listening " + base_url, flush=True)
    server.serve_forever()


class _LazyApplication:
    handler = None

    def __call__(self, environ, start_response):
        return self.handler(environ, start_response)


def add_user(arguments):
    configure(arguments.dir)
    from django.contrib.auth.models import User

    from django.contrib.auth.models import Group

    first, _, last = (arguments.name or "").partition(" ")
    user = User.objects.create_user(
        arguments.username, email=arguments.email or "", password=arguments.password, first_name=first, last_name=last
    )
    for name in arguments.group:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    groups = " in " + ", ".join(arguments.group) if arguments.group else ""
    print("added user %s%s; sign in on the provider's login page with that password" % (user.username, groups))


def add_app(arguments):
    configure(arguments.dir)
    from oauth2_provider.models import get_application_model

    Application = get_application_model()
    grant = {
        "code": Application.GRANT_AUTHORIZATION_CODE,
        "device": Application.GRANT_DEVICE_CODE,
    }[arguments.grant]
    algorithm = {"RS256": Application.RS256_ALGORITHM, "HS256": Application.HS256_ALGORITHM, "none": ""}[
        arguments.algorithm
    ]
    Application.objects.create(
        client_id=arguments.client_id,
        client_secret=arguments.secret or "",
        client_type=Application.CLIENT_CONFIDENTIAL if arguments.secret else Application.CLIENT_PUBLIC,
        authorization_grant_type=grant,
        redirect_uris=" ".join(arguments.redirect_uri),
        post_logout_redirect_uris=" ".join(arguments.post_logout_redirect_uri),
        skip_authorization=arguments.skip_authorization,
        algorithm=algorithm,
        name=arguments.client_id,
    )
    kind = "confidential" if arguments.secret else "public"
    uris = " ".join(arguments.redirect_uri) or "none"
    print("added %s client %s (grant %s, ID tokens %s), redirect URIs: %s"
          % (kind, arguments.client_id, arguments.grant, arguments.algorithm, uris))


def approve_device(arguments):
    configure(arguments.dir)
    from django.contrib.auth.models import User
    from oauth2_provider.models import get_device_grant_model

    DeviceGrant = get_device_grant_model()
    grant = DeviceGrant.objects.get(user_code=arguments.user_code)
    grant.user = User.objects.get(username=arguments.username)
    grant.status = DeviceGrant.DENIED if arguments.deny else DeviceGrant.AUTHORIZED
    grant.save()


def records(arguments):
    configure(arguments.dir)
    from oauth2_provider.models import (
        get_access_token_model,
        get_application_model,
        get_device_grant_model,
        get_grant_model,
        get_id_token_model,
        get_refresh_token_model,
    )

    def when(value):
        return value.isoformat() if value else None

    result = {
        "applications": [
            {"client_id": a.client_id, "client_type": a.client_type, "redirect_uris": a.redirect_uris.split()}
            for a in get_application_model().objects.all()
        ],
        "grants": [
            {
                "client_id": g.application.client_id,
                "user": g.user.username,
                "redirect_uri": g.redirect_uri,
                "code_challenge_method": g.code_challenge_method,
                "nonce": g.nonce,
                "scope": g.scope,
                "resource": list(g.resource or []),
            }
            for g in get_grant_model().objects.all()
        ],
        "access_tokens": [
            {
                "client_id": t.application.client_id if t.application else None,
                "user": t.user.username if t.user else None,
                "token": t.token,
                "scope": t.scope,
                "has_id_token": t.id_token_id is not None,
                "resource": list(t.resource or []),
            }
            for t in get_access_token_model().objects.all()
        ],
        "refresh_tokens": [
            {
                "client_id": t.application.client_id,
                "user": t.user.username,
                "token": t.token,
                "revoked": when(t.revoked),
            }
            for t in get_refresh_token_model().objects.all()
        ],
        "id_tokens": [
            {"client_id": t.application.client_id if t.application else None, "user": t.user.username if t.user else None, "jti": str(t.jti)}
            for t in get_id_token_model().objects.all()
        ],
        "device_grants": [
            {"client_id": g.client_id, "user_code": g.user_code, "status": g.status}
            for g in get_device_grant_model().objects.all()
        ],
    }
    print(json.dumps(result))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve")
    serve_parser.add_argument("--device", action="store_true")
    serve_parser.add_argument("--localhost-loopback", action="store_true")
    serve_parser.add_argument("--registration", action="store_true")
    serve_parser.add_argument("--no-end-session", action="store_true")
    user_parser = commands.add_parser("user")
    user_parser.add_argument("--username", required=True)
    user_parser.add_argument("--password", required=True)
    user_parser.add_argument("--name")
    user_parser.add_argument("--email")
    user_parser.add_argument("--group", action="append", default=[])
    app_parser = commands.add_parser("app")
    app_parser.add_argument("--client-id", required=True)
    app_parser.add_argument("--secret")
    app_parser.add_argument("--grant", choices=["code", "device"], default="code")
    app_parser.add_argument("--skip-authorization", action="store_true")
    app_parser.add_argument("--redirect-uri", action="append", default=[])
    app_parser.add_argument("--post-logout-redirect-uri", action="append", default=[])
    app_parser.add_argument("--algorithm", choices=["RS256", "HS256", "none"], default="RS256")
    approve_parser = commands.add_parser("approve-device")
    approve_parser.add_argument("--user-code", required=True)
    approve_parser.add_argument("--username", required=True)
    approve_parser.add_argument("--deny", action="store_true")
    commands.add_parser("records")
    for sub in (serve_parser, user_parser, app_parser, approve_parser, commands.choices["records"]):
        sub.add_argument("--dir", required=True)
    arguments = parser.parse_args()
    os.makedirs(arguments.dir, mode=0o700, exist_ok=True)
    {
        "serve": serve,
        "user": add_user,
        "app": add_app,
        "approve-device": approve_device,
        "records": records,
    }[arguments.command](arguments)


if __name__ == MODULE:
    urlpatterns = make_urls()
    ClaimsValidator = claims_validator()

if __name__ == "__main__":
    main()
