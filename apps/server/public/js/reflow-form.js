// "Start a reflow…": rooms from the site, a window inside one month, dry run or apply → POST
// /api/reflows; the new task (the operator's own) opens and is followed live like any other.
import { api, ApiError } from './api.js';
import { el } from './format.js';

const $ = (id) => document.getElementById(id);

/** Keeps the window inside the chosen month, as the server requires. */
function clampWindow() {
  const month = $('reflow-month').value;
  if (!month) return;
  const [y, m] = month.split('-').map(Number);
  const last = `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
  for (const input of [$('reflow-from'), $('reflow-to')]) {
    input.min = `${month}-01`;
    input.max = last;
    if (!input.value || input.value < input.min || input.value > input.max)
      input.value = input === $('reflow-from') ? input.min : last;
  }
}

export function setUpReflowForm({ onStarted, onFailure }) {
  let roomsLoaded = false;
  const loadRooms = async () => {
    if (!$('new-reflow').open || roomsLoaded) return;
    try {
      const { rooms } = await api.rooms();
      $('reflow-rooms').replaceChildren(
        el('legend', { text: 'Rooms going offline' }),
        ...rooms.map((room) =>
          el(
            'label',
            { class: 'inline room-choice' },
            el('input', { type: 'checkbox', name: 'room', value: room.id }),
            `${room.name}`,
          ),
        ),
      );
      roomsLoaded = true;
      if (!$('reflow-month').value) $('reflow-month').value = new Date().toISOString().slice(0, 7);
      clampWindow();
    } catch (error) {
      onFailure(error);
    }
  };
  $('new-reflow').addEventListener('toggle', () => void loadRooms());
  $('reflow-month').addEventListener('change', clampWindow);
  const submit = async (event) => {
    event.preventDefault();
    const rooms = [...document.querySelectorAll('#reflow-rooms input[name="room"]:checked')].map((i) => i.value);
    if (rooms.length === 0) return ($('reflow-problem').textContent = 'Pick at least one room.');
    $('reflow-problem').textContent = '';
    try {
      const task = await api.startReflow({
        month: $('reflow-month').value,
        offline_rooms: rooms,
        from: $('reflow-from').value,
        to: $('reflow-to').value,
        dry_run: $('reflow-dry-run').checked,
      });
      $('new-reflow').open = false;
      onStarted(task.taskId);
    } catch (error) {
      if (error instanceof ApiError) $('reflow-problem').textContent = `${error.message} (${error.code})`;
      else onFailure(error);
    }
  };
  $('reflow-form').addEventListener('submit', (event) => void submit(event));
}
