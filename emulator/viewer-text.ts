import type { ShareLocale } from "./types";

export interface ViewerText {
  title: string;
  waiting: string;
  waitingNote: string;
  running: string;
  ended: string;
  failed: string;
  gone: string;
  goneNote: string;
  leave: string;
}

export const VIEWER_TEXT: Record<ShareLocale, ViewerText> = {
  en: {
    title: "Remote browser",
    waiting: "Your browser session is starting",
    waitingNote: "This page updates by itself.",
    running: "Your browser session is live",
    ended: "This session has ended",
    failed: "This session could not start",
    gone: "This link no longer works",
    goneNote: "The session behind this link has been deleted.",
    leave: "Leave session",
  },
  de: {
    title: "Entfernter Browser",
    waiting: "Ihre Browser-Sitzung wird gestartet",
    waitingNote: "Diese Seite aktualisiert sich von selbst.",
    running: "Ihre Browser-Sitzung läuft",
    ended: "Diese Sitzung ist beendet",
    failed: "Diese Sitzung konnte nicht starten",
    gone: "Dieser Link funktioniert nicht mehr",
    goneNote: "Die Sitzung zu diesem Link wurde gelöscht.",
    leave: "Sitzung verlassen",
  },
  fr: {
    title: "Navigateur à distance",
    waiting: "Votre session de navigateur démarre",
    waitingNote: "Cette page se met à jour automatiquement.",
    running: "Votre session de navigateur est active",
    ended: "Cette session est terminée",
    failed: "Cette session n'a pas pu démarrer",
    gone: "Ce lien ne fonctionne plus",
    goneNote: "La session liée à ce lien a été supprimée.",
    leave: "Quitter la session",
  },
  es: {
    title: "Navegador remoto",
    waiting: "Tu sesión de navegador se está iniciando",
    waitingNote: "Esta página se actualiza sola.",
    running: "Tu sesión de navegador está activa",
    ended: "Esta sesión ha terminado",
    failed: "Esta sesión no pudo iniciarse",
    gone: "Este enlace ya no funciona",
    goneNote: "La sesión de este enlace se ha eliminado.",
    leave: "Salir de la sesión",
  },
  it: {
    title: "Browser remoto",
    waiting: "La tua sessione del browser si sta avviando",
    waitingNote: "Questa pagina si aggiorna da sola.",
    running: "La tua sessione del browser è attiva",
    ended: "Questa sessione è terminata",
    failed: "Impossibile avviare questa sessione",
    gone: "Questo link non funziona più",
    goneNote: "La sessione di questo link è stata eliminata.",
    leave: "Esci dalla sessione",
  },
  pt: {
    title: "Navegador remoto",
    waiting: "Sua sessão do navegador está iniciando",
    waitingNote: "Esta página se atualiza sozinha.",
    running: "Sua sessão do navegador está ativa",
    ended: "Esta sessão terminou",
    failed: "Não foi possível iniciar esta sessão",
    gone: "Este link não funciona mais",
    goneNote: "A sessão deste link foi excluída.",
    leave: "Sair da sessão",
  },
  ja: {
    title: "リモートブラウザ",
    waiting: "ブラウザセッションを開始しています",
    waitingNote: "このページは自動的に更新されます。",
    running: "ブラウザセッションは実行中です",
    ended: "このセッションは終了しました",
    failed: "このセッションを開始できませんでした",
    gone: "このリンクは無効になりました",
    goneNote: "このリンクのセッションは削除されました。",
    leave: "セッションを終了",
  },
};
