// This browser's settings (sound, motion, reveal speed), kept in localStorage, and the short
// WebAudio tones the board plays when sound is on.

import { root } from "./page.js";
import { $ } from "./dom.js";

export const store = {
  get(key) {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      /* private mode: the setting lasts for this page only */
    }
  },
};

const SETTINGS_KEY = "veyltak.board.settings";
export const settings = { sound: false, motion: false, speed: "normal" };
try {
  Object.assign(settings, JSON.parse(store.get(SETTINGS_KEY) ?? "{}"));
} catch {
  /* a broken entry: the defaults */
}
const systemStill = window.matchMedia?.("(prefers-reduced-motion: reduce)");
export const still = () => Boolean(settings.motion || systemStill?.matches);

/** The reveal's pace: 0 (instant: reduced motion or the setting), else a factor on its beats. */
export function speed() {
  if (still() || settings.speed === "instant") return 0;
  return settings.speed === "fast" ? 0.35 : 1;
}

export function applySettings() {
  root.classList.toggle("still", still());
  store.set(SETTINGS_KEY, JSON.stringify(settings));
}

let audio = null;
const TONES = { pick: [520, 0.05], send: [660, 0.07], tick: [880, 0.03], win: [990, 0.18], lose: [220, 0.18], seal: [392, 0.12] };

/** A short tone (WebAudio, no files): only when the player turned sound on. */
export function sound(kind) {
  if (!settings.sound) return;
  try {
    audio ??= new (window.AudioContext || window.webkitAudioContext)();
    const [freq, length] = TONES[kind] ?? TONES.tick;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + length);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + length);
  } catch {
    /* no audio here */
  }
}

/** The settings dialog: its form is made when it opens (no hidden controls). */
export function setupSettings() {
  applySettings();
  systemStill?.addEventListener?.("change", applySettings);
  $("b-settings-open").addEventListener("click", () => {
    const body = $("b-settings-body");
    body.replaceChildren($("b-settings-form").content.cloneNode(true));
    $("set-sound").checked = settings.sound;
    $("set-motion").checked = still();
    for (const radio of body.querySelectorAll('[name="set-speed"]')) {
      radio.checked = radio.value === settings.speed;
      radio.addEventListener("change", () => {
        settings.speed = radio.value;
        applySettings();
      });
    }
    $("set-sound").addEventListener("change", (e) => {
      settings.sound = e.target.checked;
      applySettings();
      sound("pick");
    });
    $("set-motion").addEventListener("change", (e) => {
      settings.motion = e.target.checked;
      applySettings();
    });
    $("b-settings").showModal();
  });
  $("b-settings").addEventListener("close", () => $("b-settings-body").replaceChildren());
}
