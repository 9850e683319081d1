// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A Qt 6 app that signs in through the sign-in service with libexternaluseragent: a window with a Sign in button
// and a label. The library's callbacks reach the Qt main thread through its dispatcher (one queued call each).
//
//   eua-qt-signin ISSUER CLIENT_ID [--click]     --click: press the button itself and exit with the label's text
//                                                 (what the test does under QT_QPA_PLATFORM=offscreen)
// Build: c++ -std=c++17 -fPIC main.cpp $(pkg-config --cflags --libs Qt6Widgets externaluseragent)
#include <externaluseragent.h>

#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <QWidget>
#include <cstdio>

// The dispatcher: runs the library's `run(data)` on the Qt main thread, from its event loop.
static void onMainThread(void *, void (*run)(void *), void *data) {
    QMetaObject::invokeMethod(qApp, [run, data] { run(data); }, Qt::QueuedConnection);
}

struct Window : QWidget {
    eua_client *client;
    QByteArray request;
    QPushButton *button = new QPushButton("Sign in");
    QLabel *label = new QLabel("Not signed in");
    eua_op *op = nullptr;
    bool doneOnMainThread = false;

    Window(eua_client *c, const QByteArray &r) : client(c), request(r) {
        auto *layout = new QVBoxLayout(this);
        layout->addWidget(button);
        layout->addWidget(label);
        connect(button, &QPushButton::clicked, this, [this] { signIn(); });
    }
    ~Window() override { eua_op_free(op); }

    void signIn() {
        button->setEnabled(false);
        label->setText("Signing in…");
        eua_op_free(op);
        op = eua_sign_in(client, request.constData(), &Window::done, this);
    }

    // On the main thread (the dispatcher put it there): update the window.
    static void done(void *self, const char *result_json, const eua_error *error) {
        auto *window = static_cast<Window *>(self);
        window->doneOnMainThread = QThread::currentThread() == qApp->thread();
        window->button->setEnabled(true);
        if (error) {
            window->label->setText(QString("Sign-in failed: %1").arg(QString::fromUtf8(error->message)));
            return;
        }
        QJsonObject result = QJsonDocument::fromJson(QByteArray(result_json)).object();
        QString name = result["display_name"].toString();
        window->label->setText("Signed in as " + (name.isEmpty() ? result["subject"].toString() : name));
    }
};

int main(int argc, char **argv) {
    QApplication app(argc, argv);
    QStringList arguments = app.arguments();
    if (arguments.size() < 3) {
        std::fprintf(stderr, "usage: eua-qt-signin ISSUER CLIENT_ID [--click]\n");
        return 2;
    }
    eua_error *error = nullptr;
    eua_client *client = eua_client_new(nullptr, &error);
    if (!client) {
        std::fprintf(stderr, "%s: %s\n", error->name, error->message);
        eua_error_free(error);
        return 1;
    }
    eua_client_set_dispatcher(client, onMainThread, nullptr);
    QJsonObject request{{"issuer", arguments[1]}, {"client_id", arguments[2]}, {"timeout", 120},
                        {"scopes", QJsonArray{"openid", "profile"}}};
    int status = 0;
    {
        Window window(client, QJsonDocument(request).toJson(QJsonDocument::Compact));
        window.show();
        if (arguments.contains("--click")) {
            QTimer::singleShot(0, window.button, &QPushButton::click);
            auto *poll = new QTimer(&window);
            QObject::connect(poll, &QTimer::timeout, [&] {
                if (window.label->text().startsWith("Signed in") || window.label->text().startsWith("Sign-in failed"))
                    app.quit();
            });
            poll->start(50);
            QTimer::singleShot(150000, &app, [&] { status = 3; app.quit(); });
        }
        app.exec();
        std::printf("label=%s\ndone_on_main_thread=%s\n", window.label->text().toUtf8().constData(),
                    window.doneOnMainThread ? "yes" : "no");
    }
    eua_client_free(client);
    return status;
}
