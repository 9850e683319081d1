// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The native peer for the full-login measure: what a C++ desktop developer on Linux would write with Qt
// NetworkAuth (Debian's qt6-networkauth-dev) to do the job `eua login --agent headless` does.
//
// Usage: qt_login ISSUER CLIENT_ID CLIENT_SECRET STATE_FILE
// 1. discovery (the metadata must name ISSUER exactly);
// 2. QOAuthHttpServerReplyHandler on 127.0.0.1, any free port;
// 3. QOAuth2AuthorizationCodeFlow with a 256-bit state, a 256-bit nonce and PKCE S256 (added through
//    modifyParametersFunction: Qt 6.4 has no PKCE of its own);
// 4. in process, what the headless agent in follow mode does: with a cookie jar of its own, GET the
//    authorization page, POST oidc-provider-mock's form with sub=alice, follow the redirect to the receiver;
// 5. the code exchanged with the verifier;
// 6. the JWKS fetched and the ID token checked with OpenSSL: RS256 signature, iss, aud, azp, exp, iat, nonce;
// 7. the state written with mode 0600, fsynced and renamed into place.
// Prints "signed in as SUB" and exits 0; anything else exits 1 with the reason on stderr. Built by
// Benchmarks/run with one g++ line (see qt_build_command there).
#include <QtCore/QCoreApplication>
#include <QtCore/QDateTime>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QTimer>
#include <QtCore/QUrlQuery>
#include <QtNetwork/QHostAddress>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkCookieJar>
#include <QtNetwork/QNetworkReply>
#include <QtNetworkAuth/QOAuth2AuthorizationCodeFlow>
#include <QtNetworkAuth/QOAuthHttpServerReplyHandler>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <functional>
#include <unistd.h>

namespace {

[[noreturn]] void fail(const QString &why) {
    std::fprintf(stderr, "qt_login: %s\n", qPrintable(why));
    std::exit(1);
}

QByteArray base64url(const QByteArray &bytes) {
    return bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

QByteArray fromBase64url(const QByteArray &text) {
    auto result = QByteArray::fromBase64Encoding(text, QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!result) fail("bad base64url in the ID token or the JWKS");
    return *result;
}

QByteArray random256() {
    QByteArray bytes(32, 0);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(bytes.data()), 32) != 1) fail("no randomness");
    return base64url(bytes);
}

QByteArray sha256(const QByteArray &data) {
    QByteArray digest(SHA256_DIGEST_LENGTH, 0);
    SHA256(reinterpret_cast<const unsigned char *>(data.constData()), data.size(),
           reinterpret_cast<unsigned char *>(digest.data()));
    return digest;
}

// GET or POST, with a deadline, and the reply handed to `then` once finished.
void request(QNetworkAccessManager &manager, QNetworkRequest request, const QByteArray *form,
             std::function<void(QNetworkReply *)> then) {
    request.setTransferTimeout(10000);
    QNetworkReply *reply = form ? manager.post(request, *form) : manager.get(request);
    QObject::connect(reply, &QNetworkReply::finished, reply, [reply, then] {
        reply->deleteLater();
        then(reply);
    });
}

QJsonObject jsonObject(QNetworkReply *reply, const char *what) {
    if (reply->error() != QNetworkReply::NoError) fail(QString("%1: %2").arg(what, reply->errorString()));
    const auto document = QJsonDocument::fromJson(reply->readAll());
    if (!document.isObject()) fail(QString("%1: not a JSON object").arg(what));
    return document.object();
}

// The RS256 signature of `signingInput` checked against the JWK's modulus and exponent.
bool verifyRS256(const QJsonObject &jwk, const QByteArray &signingInput, const QByteArray &signature) {
    const QByteArray n = fromBase64url(jwk.value("n").toString().toLatin1());
    const QByteArray e = fromBase64url(jwk.value("e").toString().toLatin1());
    BIGNUM *modulus = BN_bin2bn(reinterpret_cast<const unsigned char *>(n.constData()), n.size(), nullptr);
    BIGNUM *exponent = BN_bin2bn(reinterpret_cast<const unsigned char *>(e.constData()), e.size(), nullptr);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus);
    OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent);
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
    EVP_PKEY_CTX *keyContext = EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr);
    EVP_PKEY *key = nullptr;
    bool ok = EVP_PKEY_fromdata_init(keyContext) == 1
        && EVP_PKEY_fromdata(keyContext, &key, EVP_PKEY_PUBLIC_KEY, params) == 1;
    EVP_MD_CTX *digest = EVP_MD_CTX_new();
    ok = ok && EVP_DigestVerifyInit(digest, nullptr, EVP_sha256(), nullptr, key) == 1
        && EVP_DigestVerify(digest, reinterpret_cast<const unsigned char *>(signature.constData()), signature.size(),
                            reinterpret_cast<const unsigned char *>(signingInput.constData()), signingInput.size()) == 1;
    EVP_MD_CTX_free(digest);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(keyContext);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    return ok;
}

// The ID token's signature and claims; returns its subject.
QString checkIDToken(const QByteArray &token, const QJsonObject &jwks, const QString &issuer,
                     const QString &clientID, const QByteArray &nonce) {
    const auto parts = token.split('.');
    if (parts.size() != 3) fail("the ID token is not a JWS in compact form");
    const auto header = QJsonDocument::fromJson(fromBase64url(parts[0])).object();
    if (header.value("alg").toString() != "RS256") fail("the ID token is not RS256");
    const QString kid = header.value("kid").toString();
    bool verified = false;
    for (const auto &value : jwks.value("keys").toArray()) {
        const auto key = value.toObject();
        if (key.value("kty").toString() == "RSA" && (kid.isEmpty() || key.value("kid").toString() == kid)) {
            verified = verifyRS256(key, parts[0] + '.' + parts[1], fromBase64url(parts[2]));
            if (verified) break;
        }
    }
    if (!verified) fail("the ID token's signature does not verify with the JWKS");
    const auto claims = QJsonDocument::fromJson(fromBase64url(parts[1])).object();
    if (claims.value("iss").toString() != issuer) fail("the ID token's iss is not the issuer");
    const auto audience = claims.value("aud");
    const bool audienceOK = audience.isString() ? audience.toString() == clientID
                                                : audience.toArray().contains(QJsonValue(clientID));
    if (!audienceOK) fail("the ID token's aud does not hold the client id");
    if (audience.isArray() && audience.toArray().size() > 1 && !claims.contains("azp")) fail("azp missing");
    if (claims.contains("azp") && claims.value("azp").toString() != clientID) fail("the ID token's azp is not the client id");
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const qint64 skew = 300;
    if (!claims.value("exp").isDouble() || qint64(claims.value("exp").toDouble()) + skew <= now) fail("the ID token has expired");
    if (!claims.value("iat").isDouble() || qint64(claims.value("iat").toDouble()) > now + skew) fail("the ID token's iat is in the future");
    if (claims.value("nonce").toString().toLatin1() != nonce) fail("the ID token's nonce is not this sign-in's");
    return claims.value("sub").toString();
}

// Mode 0600, fsynced, renamed into place.
void saveState(const QString &path, const QJsonObject &state) {
    const QByteArray bytes = QJsonDocument(state).toJson(QJsonDocument::Compact);
    const QByteArray target = path.toLocal8Bit();
    const QByteArray temporary = target + ".tmp";
    const int fd = ::open(temporary.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail("cannot create " + path + ".tmp");
    if (::write(fd, bytes.constData(), bytes.size()) != bytes.size() || ::fsync(fd) != 0) fail("cannot write " + path);
    ::close(fd);
    if (::rename(temporary.constData(), target.constData()) != 0) fail("cannot rename onto " + path);
}

}  // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    if (argc != 5) fail("usage: qt_login ISSUER CLIENT_ID CLIENT_SECRET STATE_FILE");
    const QString issuer = argv[1], clientID = argv[2], clientSecret = argv[3], statePath = argv[4];
    QTimer::singleShot(30000, [] { fail("the sign-in did not finish within 30 s"); });

    QNetworkAccessManager manager;
    QNetworkAccessManager browser;  // the headless step's own, with its own cookie jar
    browser.setCookieJar(new QNetworkCookieJar(&browser));
    // QHostAddress spelled out: a bare QHostAddress::LocalHost would pick the (port, parent) overload.
    QOAuthHttpServerReplyHandler receiver(QHostAddress(QHostAddress::LocalHost), 0);
    if (!receiver.isListening()) fail("the loopback receiver could not listen");
    QOAuth2AuthorizationCodeFlow flow(&manager);
    flow.setReplyHandler(&receiver);
    const QByteArray state = random256(), nonce = random256(), verifier = random256();
    const QByteArray challenge = base64url(sha256(verifier));
    QJsonObject jwks;
    QJsonObject metadata;

    flow.setClientIdentifier(clientID);
    flow.setClientIdentifierSharedKey(clientSecret);
    flow.setScope("openid email");
    flow.setState(QString::fromLatin1(state));
    flow.setModifyParametersFunction([&](QAbstractOAuth::Stage stage, QMultiMap<QString, QVariant> *parameters) {
        if (stage == QAbstractOAuth::Stage::RequestingAuthorization) {
            parameters->insert("code_challenge", challenge);
            parameters->insert("code_challenge_method", "S256");
            parameters->insert("nonce", nonce);
        } else if (stage == QAbstractOAuth::Stage::RequestingAccessToken) {
            parameters->insert("code_verifier", verifier);
        }
    });
    QObject::connect(&flow, &QAbstractOAuth::requestFailed, [](QAbstractOAuth::Error error) {
        fail(QString("the OAuth flow failed (QAbstractOAuth::Error %1)").arg(int(error)));
    });

    // 4. The headless step: GET the page, POST the form, follow the redirect to the receiver.
    QObject::connect(&flow, &QAbstractOAuth::authorizeWithBrowser, [&](const QUrl &url) {
        request(browser, QNetworkRequest(url), nullptr, [&, url](QNetworkReply *page) {
            if (page->error() != QNetworkReply::NoError) fail("authorization page: " + page->errorString());
            QNetworkRequest post(url);
            post.setHeader(QNetworkRequest::ContentTypeHeader, "application/x-www-form-urlencoded");
            post.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
            static const QByteArray form = "sub=alice";
            request(browser, post, &form, [&, url](QNetworkReply *answer) {
                const QUrl location = url.resolved(answer->header(QNetworkRequest::LocationHeader).toUrl());
                if (!location.isValid() || location.isEmpty()) fail("the form's answer has no redirect");
                request(browser, QNetworkRequest(location), nullptr, [](QNetworkReply *) {});
            });
        });
    });

    // 5–7. Tokens in: fetch the JWKS, check the ID token, save the state.
    QObject::connect(&flow, &QAbstractOAuth::granted, [&] {
        const QByteArray idToken = flow.extraTokens().value("id_token").toString().toLatin1();
        if (idToken.isEmpty()) fail("the token response has no id_token");
        request(manager, QNetworkRequest(QUrl(metadata.value("jwks_uri").toString())), nullptr, [&, idToken](QNetworkReply *reply) {
            jwks = jsonObject(reply, "JWKS");
            const QString subject = checkIDToken(idToken, jwks, issuer, clientID, nonce);
            QJsonObject saved{{"issuer", issuer}, {"access_token", flow.token()}, {"id_token", QString::fromLatin1(idToken)},
                              {"refresh_token", flow.refreshToken()}, {"expires_at", flow.expirationAt().toString(Qt::ISODate)},
                              {"configuration", metadata}};
            saveState(statePath, saved);
            std::printf("signed in as %s\n", qPrintable(subject));
            QCoreApplication::exit(0);
        });
    });

    // 1. Discovery, then the grant.
    request(manager, QNetworkRequest(QUrl(issuer + "/.well-known/openid-configuration")), nullptr, [&](QNetworkReply *reply) {
        metadata = jsonObject(reply, "discovery");
        if (metadata.value("issuer").toString() != issuer) fail("the metadata's issuer is not " + issuer);
        flow.setAuthorizationUrl(QUrl(metadata.value("authorization_endpoint").toString()));
        flow.setAccessTokenUrl(QUrl(metadata.value("token_endpoint").toString()));
        flow.grant();
    });
    return app.exec();
}
